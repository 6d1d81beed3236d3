"""The README's set-up, as a newcomer reads it: the two quick-start commands that .ci/run runs (their
form unchanged), the CPU-only install and the virtual environment, and every relative link of the
README and docs/ pointing at a file that exists."""

import os
import re

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _read(*parts):
    with open(os.path.join(ROOT, *parts), encoding="utf-8") as f:
        return f.read()


def test_the_quick_start_keeps_the_two_commands_ci_runs():
    lines = _read("README.md").splitlines()
    # (the patterns .ci/run greps, first match, comment cut off)
    main = next(ln for ln in lines if re.match(r'^pip install ".\[cuda12,examples\]"', ln))
    tests = next(ln for ln in lines if re.match(r'^pip install -e ".\[test\]"', ln))
    assert main.split("#")[0].strip() == 'pip install ".[cuda12,examples]" && python examples/grayscale.py'
    assert tests.split("#")[0].strip() == 'pip install -e ".[test]" && python -m pytest'
    ci = _read(".ci", "run")
    assert "grep -m1 '^pip install \".\\[cuda12,examples\\]\"' README.md" in ci


def test_the_readme_offers_a_cpu_only_install_in_a_virtual_environment():
    text = _read("README.md")
    assert 'pip install ".[examples]" && python examples/grayscale.py' in text  # no CuPy where no GPU
    assert "python3 -m venv .venv" in text


def test_relative_links_point_at_files_that_exist():
    docs = ["README.md", "tests/README.md"] + [f"docs/{n}" for n in sorted(os.listdir(os.path.join(ROOT, "docs")))]
    broken = []
    for doc in docs:
        text = re.sub(r"```.*?```", "", _read(doc), flags=re.S)
        text = "\n".join(ln for ln in text.splitlines() if not ln.startswith("    "))  # (not code)
        prose = re.sub(r"`[^`\n]*`", "", text)
        for target in re.findall(r"\]\(([^)#:]+)(?:#[^)]*)?\)", prose):
            if not os.path.exists(os.path.join(ROOT, os.path.dirname(doc), target)):
                broken.append(f"{doc}: {target}")
    assert broken == []
