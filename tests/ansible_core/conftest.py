import sys
from pathlib import Path

# The repo root, so that `lab` and the collection's plugins import from a checkout.
ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / ".collections"))
