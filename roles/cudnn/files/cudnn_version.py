# Copyright: scc.training developers
# Apache-2.0
"""Load cuDNN the way a program does (through the linker cache) and ask its version.

No GPU is needed: cudnnGetVersion returns a constant of the library. Prints one JSON
object: the version code (cuDNN 9: major*10000 + minor*100 + patch; cuDNN 8:
major*1000 + minor*100 + patch), the library file the linker chose, and for each further
argument (a library cuDNN loads at run time, e.g. libcublasLt.so.12) the file the linker finds
for it, or null.
"""

import ctypes
import json
import sys


def loaded_path(stem):
    with open("/proc/self/maps", encoding="utf-8") as maps:
        for line in maps:
            if stem in line:
                return line.split()[-1]
    return ""


def main():
    soname = sys.argv[1] if len(sys.argv) > 1 else "libcudnn.so.9"
    lib = ctypes.CDLL(soname)
    lib.cudnnGetVersion.restype = ctypes.c_size_t
    code = lib.cudnnGetVersion()
    needs = {}
    for name in sys.argv[2:]:
        try:
            ctypes.CDLL(name)
            needs[name] = loaded_path(name.split(".so")[0] + ".so")
        except OSError:
            needs[name] = None
    print(json.dumps({"rc": 0, "code": code, "path": loaded_path(soname.split(".so")[0] + ".so"), "needs": needs}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
