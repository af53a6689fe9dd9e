# Copyright: scc.training developers
# Apache-2.0
"""Load NCCL the way a program does (through the linker cache) and ask its version.

No GPU is needed: ncclGetVersion only reads a constant of the library. Prints one JSON
object: the version code (major*10000 + minor*100 + patch since NCCL 2.9), the library file
the linker chose, and the return code of the call.
"""

import ctypes
import json
import sys


def loaded_path(name):
    with open("/proc/self/maps", encoding="utf-8") as maps:
        for line in maps:
            if name in line:
                return line.split()[-1]
    return ""


def main():
    soname = sys.argv[1] if len(sys.argv) > 1 else "libnccl.so.2"
    lib = ctypes.CDLL(soname)
    code = ctypes.c_int(0)
    rc = lib.ncclGetVersion(ctypes.byref(code))
    print(json.dumps({"rc": rc, "code": code.value, "path": loaded_path(soname.split(".so")[0] + ".so")}))
    return 0 if rc == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
