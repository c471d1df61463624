"""Packages of the distribution; everything else is in pyproject.toml.

The package list is found on disk, so a new subpackage is never left out of the wheel; namespace
discovery makes data-only folders (service/plugin, evaluate/data) count too. Two top-level
packages: openclaw_memory (the runtime) and openclaw_memory_bench (evaluation and benchmarks,
which the runtime never imports; pyproject.toml says why it is not an extra). Added to it are the two data
packages that pyproject.toml's [tool.setuptools.package-dir] maps onto the top-level config/ and
prompts/ folders.
"""

from setuptools import find_namespace_packages, setup

DATA_PACKAGES = ["openclaw_memory._config", "openclaw_memory._prompts"]

FOUND = find_namespace_packages(
    include=["openclaw_memory", "openclaw_memory.*", "openclaw_memory_bench", "openclaw_memory_bench.*"],
    exclude=["*.__pycache__", "*.__pycache__.*", "*.node_modules", "*.node_modules.*"],
)

setup(packages=FOUND + DATA_PACKAGES)
