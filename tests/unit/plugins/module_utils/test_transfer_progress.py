"""The lines of a pip install and a download while they run (plugins/module_utils/transfer_progress.py), at every
state a poll can find: before the first wheel, between two, after the last; before the partial file, mid-download,
with and without the server's length."""

from __future__ import annotations

from ansible_collections.scc.training.plugins.module_utils import transfer_progress as tp

# pip 24's --report, as `pip install --dry-run --report -` prints it (fields this module reads, plus a description).
REPORT = {
    "version": "1",
    "install": [
        {
            "download_info": {"url": "file:///srv/wheelhouse/torch-2.3.1%2Bcu121-cp311-cp311-linux_x86_64.whl"},
            "metadata": {"name": "torch", "version": "2.3.1+cu121", "description": "x" * 1000},
        },
        {
            "download_info": {"url": "file:///srv/wheelhouse/typing_extensions-4.12.2-py3-none-any.whl"},
            "metadata": {"name": "typing_extensions", "version": "4.12.2"},
        },
        {
            "download_info": {"url": "https://example.invalid/x.whl"},
            "metadata": {"name": "Zope.Interface", "version": "6.4"},
        },
        {"metadata": {"version": "1"}},
        "not a dict",
    ],
}
TORCH = "/srv/wheelhouse/torch-2.3.1+cu121-cp311-cp311-linux_x86_64.whl"
TYPING = "/srv/wheelhouse/typing_extensions-4.12.2-py3-none-any.whl"


def test_the_wanted_wheels_are_the_dry_runs_install_list_with_local_paths():
    assert tp.wanted_wheels(REPORT) == [
        {"name": "torch", "version": "2.3.1+cu121", "wheel": TORCH},
        {"name": "typing_extensions", "version": "4.12.2", "wheel": TYPING},
        {"name": "Zope.Interface", "version": "6.4", "wheel": None},
    ]
    assert tp.wanted_wheels({}) == [] and tp.wanted_wheels(None) == []
    # The slim report reads back the same, without the descriptions.
    slim = tp.slim_report(REPORT)
    assert tp.wanted_wheels(slim) == tp.wanted_wheels(REPORT)
    assert "description" not in str(slim)


def test_dist_info_names_are_read_as_pip_writes_them():
    assert tp.dist_info_key("torch-2.3.1+cu121.dist-info") == ("torch", "2.3.1+cu121")
    assert tp.dist_info_key("typing_extensions-4.12.2.dist-info") == ("typing-extensions", "4.12.2")
    assert tp.dist_info_key("zope.interface-6.4.dist-info") == ("zope-interface", "6.4")
    assert tp.dist_info_key("torch-2.3.1.egg-info") is None
    assert tp.dist_info_key("__pycache__") is None


def test_an_install_counts_finished_wanted_wheels_by_their_bytes():
    wanted = tp.wanted_wheels(REPORT)[:2]
    sizes = {TORCH: 2_000_000_000, TYPING: 40_000}
    before = tp.install_snapshot(wanted, [{"dist_info": "pip-24.0.dist-info", "finished_at": 1.0}], sizes)
    assert before == {"done": 0, "total": 2, "bytes_done": 0, "bytes_total": 2_000_040_000, "last": None}
    assert tp.install_line("python_env on node1", before, 12) == (
        "python_env on node1: pip is reading 2 wheel(s), none installed yet, 12s elapsed"
    )
    # An older torch still in place (an upgrade) is not the wanted one.
    typing_done = {"dist_info": "typing_extensions-4.12.2.dist-info", "finished_at": 5.0}
    between = tp.install_snapshot(
        wanted, [typing_done, {"dist_info": "torch-2.2.0.dist-info", "finished_at": 1.0}], sizes
    )
    assert between == {
        "done": 1,
        "total": 2,
        "bytes_done": 40_000,
        "bytes_total": 2_000_040_000,
        "last": "typing_extensions 4.12.2",
    }
    line = tp.install_line("python_env on node1", between, 70)
    assert line == (
        "python_env on node1: installing wheels, 1 of 2 done (40.0 kB of 2.00 GB, last: typing_extensions 4.12.2),"
        " 1m10s elapsed, about 972h13m left"
    )
    torch_done = {"dist_info": "torch-2.3.1+cu121.dist-info", "finished_at": 9.0}
    after = tp.install_snapshot(wanted, [typing_done, torch_done], sizes)
    assert after["done"] == 2 and after["last"] == "torch 2.3.1+cu121" and after["bytes_done"] == 2_000_040_000
    assert tp.install_line("python_env on node1", after, 112, finished=True) == (
        "python_env on node1: pip ended, 2 of 2 wheel(s) installed, 1m52s elapsed"
    )


def test_without_a_wheels_size_the_count_estimates_the_time_left():
    wanted = tp.wanted_wheels(REPORT)
    snap = tp.install_snapshot(wanted, [{"dist_info": "Zope.Interface-6.4.dist-info", "finished_at": 2.0}], {TORCH: 9})
    assert snap["bytes_total"] is None and snap["bytes_done"] is None and snap["done"] == 1
    assert tp.install_line("p", snap, 30) == (
        "p: installing wheels, 1 of 3 done (last: Zope.Interface 6.4), 30s elapsed, about 1m00s left"
    )


def test_sizes_read_as_pip_and_curl_print_them():
    assert [tp.size(n) for n in (0, 999, 1000, 1_234_567, 2_310_000_000)] == [
        "0 B",
        "999 B",
        "1.0 kB",
        "1.2 MB",
        "2.31 GB",
    ]


def test_a_download_line_has_bytes_of_total_rate_and_time_left():
    assert tp.download_line("a.whl", None, None, None, 3) == "a.whl: no bytes received yet, 3s elapsed"
    rate = tp.download_rate([(0.0, 0), (10.0, 500_000_000)])
    assert rate == 50_000_000
    assert tp.download_line("a.whl", 500_000_000, 2_000_000_000, rate, 10) == (
        "a.whl: 500.0 MB of 2.00 GB (25%), 50.0 MB/s, about 30s left, 10s elapsed"
    )
    # No length announced: bytes and rate only.
    assert tp.download_line("a.whl", 500_000_000, None, rate, 10) == "a.whl: 500.0 MB, 50.0 MB/s, 10s elapsed"
    # One sample, or a file that shrank (a retry started over): no rate yet.
    assert tp.download_rate([(0.0, 10)]) is None and tp.download_rate([(0.0, 10), (1.0, 5)]) is None
    assert tp.download_line("a.whl", 10, 100, None, 1) == "a.whl: 10 B of 100 B (10%), 1s elapsed"
    assert tp.download_line("a.whl", 100, 100, 5.0, 20, finished=True) == "a.whl: download ended, 20s elapsed"


def test_the_partial_file_has_a_directory_of_its_own_beside_the_destination():
    assert tp.partial_dir("/var/cache/scc/files/torch.whl") == "/var/cache/scc/files/.torch.whl.partial"
    assert tp.partial_dir("torch.whl") == ".torch.whl.partial"
