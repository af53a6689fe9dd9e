# -*- coding: utf-8 -*-
"""nvidia_library_info: version codes decoded as NVIDIA's headers define them, the library file
found among the process's mappings, cubin headers, and the module run with a stand-in loader."""

from __future__ import annotations

import ctypes
import json
import struct

import pytest
from ansible.module_utils.testing import patch_module_args

from ansible_collections.scc.training.plugins.modules import nvidia_library_info as m

MAPS = """\
7f1c2a000000-7f1c2a200000 r-xp 00000000 08:01 131 /usr/lib/x86_64-linux-gnu/libcudnn_graph.so.9.10.2
7f1c2b000000-7f1c2b100000 r-xp 00000000 08:01 132 /usr/lib/x86_64-linux-gnu/libcudnn.so.9.10.2
7f1c2c000000-7f1c2c100000 r--p 00000000 08:01 133 /opt/scc-training/cuda/12.8/nvidia/cublas/lib/libcublasLt.so.12
7ffd5e7d4000-7ffd5e7f5000 rw-p 00000000 00:00 0                          [stack]
"""


@pytest.mark.parametrize(
    "soname, code, version",
    [
        ("libcudart.so.12", 12080, "12.8"),
        ("libcudart.so.11.0", 11080, "11.8"),
        ("libcublasLt.so.12", 120804, "12.8.4"),
        ("libcudnn.so.9", 91002, "9.10.2"),
        ("libcudnn.so.8", 8907, "8.9.7"),
        ("libnccl.so.2", 22705, "2.27.5"),
        ("libnccl.so.2", 2804, "2.8.4"),
        ("libnvrtc.so.12", 12080, "12.8"),
    ],
)
def test_version_codes_decode_as_the_headers_define_them(soname, code, version):
    assert m.VERSION_CALLS[m.stem(soname)][2](code) == version


def test_loaded_path_takes_the_library_not_its_sub_libraries():
    assert m.loaded_path("libcudnn.so.9", MAPS) == "/usr/lib/x86_64-linux-gnu/libcudnn.so.9.10.2"
    assert m.loaded_path("libcublasLt.so.12", MAPS).startswith("/opt/scc-training/cuda/12.8/")
    assert m.loaded_path("libnccl.so.2", MAPS) is None


@pytest.mark.parametrize(
    "abi_version, flags, sm",
    [(7, 0x00460546, 0x46), (8, 0x6004B04, 75), (8, 0x6005A04, 90)],
    ids=["cuda12-sm70", "cuda13-sm75", "cuda13-sm90"],
)
def test_cubin_header_reads_machine_and_sm(abi_version, flags, sm):
    head = bytearray(64)
    head[:4] = b"\x7fELF"
    head[8] = abi_version
    struct.pack_into("<H", head, 18, 190)
    struct.pack_into("<I", head, 48, flags)
    assert m.cubin_header(bytes(head)) == {"elf": True, "machine": 190, "sm": sm}


def test_cubin_header_of_a_short_file():
    assert m.cubin_header(b"short") == {"elf": False, "machine": None, "sm": None}


class FakeFunction:
    def __init__(self, code, rc=0):
        self.code, self.rc, self.restype = code, rc, None

    def __call__(self, *pointers):
        if not pointers:
            return self.code
        if len(pointers) == 2:  # nvrtcVersion(&major, &minor)
            pointers[0]._obj.value, pointers[1]._obj.value = self.code // 1000, self.code % 1000 // 10
        else:
            pointers[0]._obj.value = self.code
        return self.rc


class FakeLibraries:
    """Stand-in for ctypes.CDLL: the libraries 'installed' and their version functions."""

    def __init__(self, installed):
        self.installed = installed

    def __call__(self, soname):
        if soname not in self.installed:
            raise OSError("%s: cannot open shared object file: No such file or directory" % soname)
        lib = type("Lib", (), {})()
        for name, function in self.installed[soname].items():
            setattr(lib, name, function)
        return lib


def test_library_info_reports_path_code_version_or_why_not():
    fake = FakeLibraries(
        {
            "libcudnn.so.9": {"cudnnGetVersion": FakeFunction(91002)},
            "libnccl.so.2": {"ncclGetVersion": FakeFunction(0, rc=5)},
            "libcublasLt.so.12": {},
            "libfoo.so.1": {},
        }
    )
    info = {name: m.library_info(name, fake, lambda: MAPS) for name in fake.installed}
    assert info["libcudnn.so.9"] == {
        "path": "/usr/lib/x86_64-linux-gnu/libcudnn.so.9.10.2",
        "code": 91002,
        "version": "9.10.2",
        "rc": None,
    }
    assert info["libnccl.so.2"]["rc"] == 5 and info["libnccl.so.2"]["version"] is None
    assert "ncclGetVersion returned 5" in info["libnccl.so.2"]["error"]
    assert "no cublasLtGetVersion" in info["libcublasLt.so.12"]["error"]
    assert info["libfoo.so.1"] == {"path": None, "code": None, "version": None, "rc": None}
    missing = m.library_info("libcudart.so.12", fake, lambda: MAPS)
    assert missing["path"] is None and "cannot open shared object file" in missing["error"]


def test_int_out_parameter_calls():
    fake = FakeLibraries(
        {
            "libcudart.so.12": {"cudaRuntimeGetVersion": FakeFunction(12080)},
            "libnvrtc.so.12": {"nvrtcVersion": FakeFunction(12080)},
        }
    )
    assert m.library_info("libcudart.so.12", fake, lambda: "")["version"] == "12.8"
    assert m.library_info("libnvrtc.so.12", fake, lambda: "")["version"] == "12.8"


def test_module_reports_every_library_and_changes_nothing(capsys, monkeypatch):
    monkeypatch.setattr(m, "library_info", lambda name: {"path": None, "code": None, "version": None, "rc": None})
    with patch_module_args({"libraries": ["libcudnn.so.9", "libcublasLt.so.12"]}):
        with pytest.raises(SystemExit):
            m.main()
    result = json.loads(capsys.readouterr().out)
    assert result["changed"] is False and sorted(result["libraries"]) == ["libcublasLt.so.12", "libcudnn.so.9"]
    assert "compile" not in result


def test_module_refuses_two_compilers(capsys):
    with patch_module_args({"compile": {"nvcc": "/usr/local/cuda/bin/nvcc", "ptxas": "/usr/bin/ptxas"}}):
        with pytest.raises(SystemExit):
            m.main()
    result = json.loads(capsys.readouterr().out)
    assert result["failed"] and "mutually exclusive" in result["msg"]


def test_ctypes_is_the_default_loader():
    assert m.library_info.__defaults__[0] is ctypes.CDLL
