#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: scc.training developers
# Apache License 2.0 (see LICENSE or https://www.apache.org/licenses/LICENSE-2.0)

from __future__ import annotations

DOCUMENTATION = r"""
---
module: nvidia_library_info
short_description: Load NVIDIA's CUDA libraries as a program would and report their versions (no GPU needed)
version_added: 0.2.0
author: scc.training developers (@scc-training)
description:
  - Loads each library of O(libraries) by its soname through the dynamic linker (the linker cache and
    C(/etc/ld.so.conf.d), as any program would) and reports the file the linker chose and, for the libraries
    it knows, the version the library itself reports. None of these calls needs a GPU or a driver.
  - "Known libraries and their version calls: C(libcudart) (C(cudaRuntimeGetVersion)), C(libcublasLt)
    (C(cublasLtGetVersion)), C(libcudnn) (C(cudnnGetVersion)), C(libnccl) (C(ncclGetVersion)), C(libnvrtc)
    (C(nvrtcVersion)). Any other soname is only loaded."
  - With O(compile), also proves a CUDA compiler usable by compiling a small kernel to a cubin for one GPU
    architecture and reading the cubin's ELF header.
  - Read-only; it changes nothing (the kernel is compiled in a temporary directory that is removed).
  - Used by the verify steps of the cuda, cudnn and nccl roles.
options:
  libraries:
    description:
      - Sonames to load, for example V(libcudart.so.12), V(libcublasLt.so.12), V(libcudnn.so.9), V(libnccl.so.2).
      - A library the linker does not find is reported with RV(libraries.path) V(null), not as a failure.
    type: list
    elements: str
    default: []
  compile:
    description:
      - Compile a small CUDA kernel (C(axpy)) to a cubin for O(compile.arch).
    type: dict
    suboptions:
      arch:
        description: The GPU architecture, the digits of C(sm_NN).
        type: str
        default: "70"
      nvcc:
        description: Compile with this nvcc (C(nvcc -cubin -arch=sm_NN)).
        type: path
      ptxas:
        description:
          - Compile with NVRTC (O(compile.nvrtc)) to PTX, then this ptxas to a cubin. NVIDIA's nvcc wheel for
            CUDA 12 ships ptxas and libNVVM but not the nvcc driver.
        type: path
      nvrtc:
        description: The NVRTC soname used with O(compile.ptxas).
        type: str
        default: libnvrtc.so.12
extends_documentation_fragment:
  - scc.training.read_only
notes:
  - "Version codes, as NVIDIA's headers define them: C(cudart) C(major*1000 + minor*10) (cuda_runtime_api.h,
    CUDART_VERSION); C(cuBLASLt) C(major*10000 + minor*100 + patch) (cublas_api.h of CUDA 12, CUBLAS_VERSION);
    C(cuDNN) 9 C(major*10000 + minor*100 + patch), cuDNN 8 C(major*1000 + minor*100 + patch) (cudnn_version.h,
    CUDNN_VERSION); C(NCCL) C(major*10000 + minor*100 + patch) from 2.9, C(major*1000 + minor*100 + patch)
    before (nccl.h, NCCL_VERSION)."
"""

EXAMPLES = r"""
- name: Load cuDNN and the cuBLASLt its engines load at run time
  scc.training.nvidia_library_info:
    libraries: [libcudnn.so.9, libcublasLt.so.12]
  register: libs

- name: The linker finds cuDNN 9.10.2
  ansible.builtin.assert:
    that: libs.libraries['libcudnn.so.9'].version == '9.10.2'

- name: Load the CUDA runtime and compile a kernel for sm_70 with NVRTC and ptxas
  scc.training.nvidia_library_info:
    libraries: [libcudart.so.12]
    compile:
      arch: "70"
      ptxas: /opt/scc-training/cuda/12.8/nvidia/cuda_nvcc/bin/ptxas
"""

RETURN = r"""
libraries:
  description: One entry per soname of O(libraries).
  returned: always
  type: dict
  sample:
    libcudnn.so.9: {"path": "/usr/lib/x86_64-linux-gnu/libcudnn.so.9.10.2", "code": 91002, "version": "9.10.2", "rc": 0}
  contains:
    path:
      description: The file the linker loaded, null when it found none.
      type: str
    code:
      description: The version code the library reported, null for a library without a known version call.
      type: int
    version:
      description: The version the code stands for (C(major.minor) for the CUDA runtime and NVRTC, else
        C(major.minor.patch)), null without a code.
      type: str
    rc:
      description: The status the version call returned (0 is success), null for calls without one.
      type: int
    error:
      description: Why the library could not be loaded or asked.
      type: str
      returned: when the library was not loaded or its version call failed
compile:
  description: What compiling the kernel gave, when O(compile) was set.
  returned: when O(compile) is set
  type: dict
  contains:
    compiler:
      description: The nvcc path, or C(<NVRTC file> + <ptxas>).
      type: str
    rc:
      description: The compiler's exit code (1 when NVRTC failed).
      type: int
    output:
      description: The last 2000 characters of what the compiler printed.
      type: str
    cubin:
      description: The cubin's ELF header, null when compiling failed.
      type: dict
      contains:
        elf:
          description: Whether the file is an ELF file.
          type: bool
        machine:
          description: ELF machine, 190 (EM_CUDA) for a cubin.
          type: int
        sm:
          description: The SM the cubin is for (from the ELF flags), 70 for sm_70.
          type: int
"""

import ctypes
import os
import struct
import tempfile

from ansible.module_utils.basic import AnsibleModule

KERNEL = r"""
extern "C" __global__ void axpy(float a, const float *x, float *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}
"""


def _split3(code, major_unit):
    return "%d.%d.%d" % (code // major_unit, code % major_unit // 100, code % 100)


def _cudnn_version(code):
    # cuDNN 9 encodes major*10000, cuDNN 8 major*1000: 9xxxx vs 8xxx.
    return _split3(code, 10000 if code >= 10000 else 1000)


def _nccl_version(code):
    # NCCL_VERSION(X, Y, Z): X*1000 + Y*100 + Z up to 2.8, X*10000 + Y*100 + Z from 2.9.
    return _split3(code, 10000 if code >= 10000 else 1000)


# soname stem -> (version function, how it answers: "out" = status + int out-parameter,
# "return" = the code as a size_t result, "two" = status + major and minor out-parameters; decoder).
VERSION_CALLS = {
    "libcudart": ("cudaRuntimeGetVersion", "out", lambda code: "%d.%d" % (code // 1000, code % 1000 // 10)),
    "libcublasLt": ("cublasLtGetVersion", "return", lambda code: _split3(code, 10000)),
    "libcudnn": ("cudnnGetVersion", "return", _cudnn_version),
    "libnccl": ("ncclGetVersion", "out", _nccl_version),
    "libnvrtc": ("nvrtcVersion", "two", lambda code: "%d.%d" % (code // 1000, code % 1000 // 10)),
}


def stem(soname):
    """libcudnn.so.9 -> libcudnn."""
    return os.path.basename(soname).split(".so")[0]


def loaded_path(soname, maps_text):
    """The file of soname's library among the mappings of /proc/self/maps, or None."""
    wanted = stem(soname) + ".so"
    for line in maps_text.splitlines():
        fields = line.split()
        if len(fields) >= 6 and os.path.basename(fields[-1]).startswith(wanted):
            return fields[-1]
    return None


def _read_maps():
    with open("/proc/self/maps", encoding="utf-8") as maps:
        return maps.read()


def ask_version(lib, how, function):
    """(rc, code) of the library's version call; rc is None for calls without a status."""
    func = getattr(lib, function)
    if how == "return":
        func.restype = ctypes.c_size_t
        return None, int(func())
    if how == "two":
        major, minor = ctypes.c_int(0), ctypes.c_int(0)
        rc = func(ctypes.byref(major), ctypes.byref(minor))
        return rc, major.value * 1000 + minor.value * 10
    code = ctypes.c_int(0)
    rc = func(ctypes.byref(code))
    return rc, code.value


def library_info(soname, cdll=ctypes.CDLL, read_maps=_read_maps):
    """Load soname through the dynamic linker; where it came from and the version it reports."""
    info = {"path": None, "code": None, "version": None, "rc": None}
    try:
        lib = cdll(soname)
    except OSError as exc:
        info["error"] = str(exc)
        return info
    info["path"] = loaded_path(soname, read_maps())
    call = VERSION_CALLS.get(stem(soname))
    if call is None:
        return info
    function, how, decode = call
    try:
        info["rc"], info["code"] = ask_version(lib, how, function)
    except AttributeError as exc:
        info["error"] = "no %s in %s: %s" % (function, soname, exc)
        return info
    if info["rc"] in (None, 0):
        info["version"] = decode(info["code"])
    else:
        info["error"] = "%s returned %s" % (function, info["rc"])
    return info


def cubin_header(head):
    """ELF identification of a cubin's first 64 bytes: machine (EM_CUDA is 190) and the SM in e_flags.

    CUDA 12's compilers write ELF ABI version 7 with the SM in the low byte of e_flags (sm_70 cubins
    of ptxas 12.8: 70); CUDA 13's write ABI version 8 with it in bits 8-15 (nvcc 13.0 cubins for
    sm_75 and sm_90: e_flags 0x6004b04, 0x6005a04).
    """
    if len(head) < 52:
        return {"elf": False, "machine": None, "sm": None}
    flags = struct.unpack_from("<I", head, 48)[0]
    return {
        "elf": head[:4] == b"\x7fELF",
        "machine": struct.unpack_from("<H", head, 18)[0],
        "sm": (flags >> 8) & 0xFF if head[8] >= 8 else flags & 0xFF,
    }


def nvrtc_ptx(soname, arch):
    """PTX of KERNEL for compute_<arch> from NVRTC; (ptx bytes, NVRTC file)."""
    lib = ctypes.CDLL(soname)
    prog = ctypes.c_void_p()
    if lib.nvrtcCreateProgram(ctypes.byref(prog), KERNEL.encode(), b"axpy.cu", 0, None, None):
        raise RuntimeError("nvrtcCreateProgram failed")
    opts = (ctypes.c_char_p * 1)(("--gpu-architecture=compute_%s" % arch).encode())
    rc = lib.nvrtcCompileProgram(prog, 1, opts)
    size = ctypes.c_size_t()
    lib.nvrtcGetProgramLogSize(prog, ctypes.byref(size))
    log = ctypes.create_string_buffer(size.value)
    lib.nvrtcGetProgramLog(prog, log)
    if rc:
        raise RuntimeError("NVRTC: %s" % log.value.decode(errors="replace"))
    lib.nvrtcGetPTXSize(prog, ctypes.byref(size))
    ptx = ctypes.create_string_buffer(size.value)
    lib.nvrtcGetPTX(prog, ptx)
    return ptx.value, loaded_path(soname, _read_maps())


def compile_kernel(module, options):
    """Compile KERNEL to a cubin with nvcc, or NVRTC + ptxas; what the compiler said and the cubin."""
    arch = options["arch"]
    with tempfile.TemporaryDirectory(prefix="scc-nvidia-library-info-") as tmp:
        cubin = os.path.join(tmp, "axpy.cubin")
        if options["nvcc"]:
            source = os.path.join(tmp, "axpy.cu")
            with open(source, "w", encoding="utf-8") as handle:
                handle.write(KERNEL)
            compiler = options["nvcc"]
            argv = [options["nvcc"], "-cubin", "-arch=sm_%s" % arch, "-o", cubin, source]
        else:
            try:
                ptx, nvrtc = nvrtc_ptx(options["nvrtc"], arch)
            except (OSError, RuntimeError, AttributeError) as exc:
                return {"compiler": options["nvrtc"], "rc": 1, "output": str(exc)[-2000:], "cubin": None}
            source = os.path.join(tmp, "axpy.ptx")
            with open(source, "wb") as handle:
                handle.write(ptx)
            compiler = "%s + %s" % (nvrtc, options["ptxas"])
            argv = [options["ptxas"], "-arch=sm_%s" % arch, "-o", cubin, source]
        rc, out, err = module.run_command(argv)
        result = {"compiler": compiler, "rc": rc, "output": (out + err)[-2000:], "cubin": None}
        if rc == 0:
            with open(cubin, "rb") as handle:
                result["cubin"] = cubin_header(handle.read(64))
    return result


def main():
    module = AnsibleModule(
        argument_spec={
            "libraries": {"type": "list", "elements": "str", "default": []},
            "compile": {
                "type": "dict",
                "options": {
                    "arch": {"type": "str", "default": "70"},
                    "nvcc": {"type": "path"},
                    "ptxas": {"type": "path"},
                    "nvrtc": {"type": "str", "default": "libnvrtc.so.12"},
                },
                "mutually_exclusive": [["nvcc", "ptxas"]],
                "required_one_of": [["nvcc", "ptxas"]],
            },
        },
        supports_check_mode=True,
    )
    result = {"changed": False, "libraries": {name: library_info(name) for name in module.params["libraries"]}}
    if module.params["compile"]:
        result["compile"] = compile_kernel(module, module.params["compile"])
    module.exit_json(**result)


if __name__ == "__main__":
    main()
