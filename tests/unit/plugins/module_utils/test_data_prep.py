"""data_prep_input_problems: provision.yml's data-prep ECS variables, refused naming the variable."""

import pytest

from ansible_collections.scc.training.plugins.module_utils import data_prep

GOOD = {
    "scc_cloud_data_prep_enabled": True,
    "scc_cloud_data_prep_instance_type": "ecs.g7.8xlarge",
    "scc_cloud_data_prep_image_id": "aliyun_3_x64_20G_alibase_20250101.vhd",
    "scc_cloud_data_prep_system_disk_size": 500,
}


def test_the_disk_floor_is_the_published_archives_twice_plus_the_image():
    assert data_prep.ILSVRC2012_ARCHIVE_BYTES == 154642401280  # 144.02 GiB
    assert data_prep.MIN_SYSTEM_DISK_GIB == 289 + 20


def test_good_settings_and_a_disabled_prep_ecs_pass():
    assert data_prep.data_prep_input_problems(GOOD) == []
    assert data_prep.data_prep_input_problems(dict(GOOD, scc_cloud_data_prep_system_disk_size="309")) == []
    # Disabled: provision.yml only releases an earlier instance, whatever the other variables say.
    assert data_prep.data_prep_input_problems({"scc_cloud_data_prep_enabled": False}) == []


@pytest.mark.parametrize(
    "change,variable",
    [
        ({"scc_cloud_data_prep_image_id": ""}, "scc_cloud_data_prep_image_id"),
        ({"scc_cloud_data_prep_image_id": None}, "scc_cloud_data_prep_image_id"),
        (
            {"scc_cloud_data_prep_system_disk_size": 100},
            "scc_cloud_data_prep_system_disk_size (100) must be 309 to 2048",
        ),
        ({"scc_cloud_data_prep_system_disk_size": 308}, "scc_cloud_data_prep_system_disk_size"),
        ({"scc_cloud_data_prep_system_disk_size": 4096}, "scc_cloud_data_prep_system_disk_size"),
        ({"scc_cloud_data_prep_system_disk_size": "big"}, "scc_cloud_data_prep_system_disk_size"),
        ({"scc_cloud_data_prep_instance_type": "g7.8xlarge"}, "scc_cloud_data_prep_instance_type"),
        ({"scc_cloud_data_prep_instance_type": "ecs.sccgn6.24xlarge"}, "is an SCC type"),
    ],
)
def test_bad_settings_name_the_variable(change, variable):
    problems = data_prep.data_prep_input_problems(dict(GOOD, **change))
    assert len(problems) == 1 and variable in problems[0], problems


def test_every_problem_is_reported_at_once():
    bad = dict(GOOD, scc_cloud_data_prep_image_id="", scc_cloud_data_prep_system_disk_size=40)
    assert len(data_prep.data_prep_input_problems(bad)) == 2


def test_no_filter_but_the_cloud_rules_reach_it_and_it_names_a_bad_input():
    from ansible_collections.scc.training.plugins.filter import cidr as provision_filters

    assert "data_prep_input_problems" not in provision_filters.FilterModule().filters()
    assert data_prep.data_prep_input_problems(GOOD) == []
    with pytest.raises((AttributeError, TypeError, KeyError)):
        data_prep.data_prep_input_problems([])
