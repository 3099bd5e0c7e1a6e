import subprocess
import sys

import troth


def test_all_names_exist_and_are_unique() -> None:
    for name in troth.__all__:
        assert hasattr(troth, name), name
    assert len(set(troth.__all__)) == len(troth.__all__)


def test_import_loads_no_provider_sdk() -> None:
    optional = ["openai", "llama_cpp", "ray", "pyarrow", "onnxruntime", "tokenizers"]
    code = f"import sys, troth; print(*[m in sys.modules for m in {optional!r}])"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["False"] * len(optional)
