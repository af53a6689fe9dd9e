# Copyright: scc.training developers
# Apache-2.0
"""Prove a CUDA install usable on a host without a GPU.

1. Load the runtime (libcudart.so.<major>) through the linker cache and call
   cudaRuntimeGetVersion, which needs no driver.
2. Compile a small CUDA kernel for sm_70 (V100): with nvcc (-cubin) when --nvcc is given,
   otherwise with NVRTC (libnvrtc.so.<major>) to PTX and ptxas to a cubin (NVIDIA's PyPI nvcc
   wheel ships ptxas and libNVVM, not the nvcc driver).
3. Read the cubin's ELF header: machine EM_CUDA (190) and the SM in e_flags.
4. Load cuBLASLt (libcublasLt.so.<major>, which cuDNN's engines load at run time) and call
   cublasLtGetVersion, which needs no GPU either.

Prints one JSON object.
"""

import argparse
import ctypes
import json
import os
import struct
import subprocess
import sys
import tempfile

KERNEL = r"""
extern "C" __global__ void axpy(float a, const float *x, float *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}
"""
EM_CUDA = 190


def loaded_path(stem):
    with open("/proc/self/maps", encoding="utf-8") as maps:
        for line in maps:
            if stem in line:
                return line.split()[-1]
    return ""


def runtime_version(major):
    lib = ctypes.CDLL("libcudart.so.%s" % major)
    code = ctypes.c_int(0)
    rc = lib.cudaRuntimeGetVersion(ctypes.byref(code))
    return {"rc": rc, "code": code.value, "path": loaded_path("libcudart.so")}


def cublaslt_version(major):
    try:
        lib = ctypes.CDLL("libcublasLt.so.%s" % major)
    except OSError as exc:
        return {"code": None, "path": "", "error": str(exc)}
    lib.cublasLtGetVersion.restype = ctypes.c_size_t
    return {"code": lib.cublasLtGetVersion(), "path": loaded_path("libcublasLt.so")}


def nvrtc_ptx(major, arch):
    lib = ctypes.CDLL("libnvrtc.so.%s" % major)
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
    return ptx.value, loaded_path("libnvrtc.so")


def cubin_header(path):
    with open(path, "rb") as handle:
        head = handle.read(64)
    return {
        "elf": head[:4] == b"\x7fELF",
        "machine": struct.unpack_from("<H", head, 18)[0],
        "sm": struct.unpack_from("<I", head, 48)[0] & 0xFF,
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cuda-major", required=True)
    parser.add_argument("--arch", default="70")
    parser.add_argument("--nvcc", default="", help="nvcc to compile with (repository installs)")
    parser.add_argument("--ptxas", default="", help="ptxas for NVRTC's PTX (wheel installs)")
    args = parser.parse_args()

    out = {"runtime": runtime_version(args.cuda_major), "cublaslt": cublaslt_version(args.cuda_major)}
    with tempfile.TemporaryDirectory(prefix="scc-cuda-check-") as tmp:
        cubin = os.path.join(tmp, "axpy.cubin")
        if args.nvcc:
            source = os.path.join(tmp, "axpy.cu")
            with open(source, "w", encoding="utf-8") as handle:
                handle.write(KERNEL)
            cmd = [args.nvcc, "-cubin", "-arch=sm_%s" % args.arch, "-o", cubin, source]
            out["compiler"] = args.nvcc
        else:
            ptx, nvrtc = nvrtc_ptx(args.cuda_major, args.arch)
            source = os.path.join(tmp, "axpy.ptx")
            with open(source, "wb") as handle:
                handle.write(ptx)
            cmd = [args.ptxas, "-arch=sm_%s" % args.arch, "-o", cubin, source]
            out["compiler"] = "%s + %s" % (nvrtc, args.ptxas)
        proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, check=False)
        out["compile_rc"] = proc.returncode
        out["compile_output"] = proc.stdout[-2000:]
        out["cubin"] = cubin_header(cubin) if proc.returncode == 0 else None
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
