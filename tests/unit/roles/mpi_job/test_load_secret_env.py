"""mpi_job_rank.load_secret_env: the 0600 file's NAME=value lines into the environment, the names returned; a file
others may read, or a line that is not NAME=value, refused without showing a value."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[4] / "runtime"))
from scc_training_runtime import mpi_job_rank


def _file(tmp_path, text, mode=0o600):
    path = tmp_path / "secret.env"
    path.write_text(text)
    path.chmod(mode)
    return {"SCC_MPI_JOB_SECRET_ENV_FILE": str(path), "KEEP": "1"}


def test_the_lines_reach_the_environment(tmp_path):
    env = _file(tmp_path, "# header\nHF_TOKEN=a=b c\nWANDB_API_KEY=\n")
    assert mpi_job_rank.load_secret_env(env) == ["HF_TOKEN", "WANDB_API_KEY"]
    assert env["HF_TOKEN"] == "a=b c" and env["WANDB_API_KEY"] == "" and env["KEEP"] == "1"


def test_no_file_named_is_nothing_to_load():
    env = {"KEEP": "1"}
    assert mpi_job_rank.load_secret_env(env) == [] and env == {"KEEP": "1"}


@pytest.mark.parametrize("mode", [0o640, 0o604, 0o644])
def test_a_file_others_may_read_is_refused(tmp_path, mode):
    env = _file(tmp_path, "HF_TOKEN=s3cret\n", mode)
    with pytest.raises(PermissionError, match="mode 0%o: a secret environment file must be 0600" % mode):
        mpi_job_rank.load_secret_env(env)
    assert "HF_TOKEN" not in env


@pytest.mark.parametrize("line", ["s3cret", "1X=s3cret", "A-B=s3cret"])
def test_a_line_that_is_not_name_value_is_refused_without_its_value(tmp_path, line):
    env = _file(tmp_path, line + "\n")
    with pytest.raises(ValueError, match=r"line 1 is not NAME=value$") as info:
        mpi_job_rank.load_secret_env(env)
    assert "s3cret" not in str(info.value)
