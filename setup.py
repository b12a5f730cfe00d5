# SPDX-License-Identifier: Apache-2.0
"""Builds the Python package `ocml` (python/ocml) and its C++ extension `ocml._ocml`.

The extension is built by CMake (python/CMakeLists.txt, -DOCML_BUILD_PYTHON=ON) with the
library it wraps, then copied into the package. With OCML_BUILD_DIR set to an existing
CMake tree configured with -DOCML_BUILD_PYTHON=ON, that tree's extension is built (usually
already up to date) and used, so CI does not build the library twice.

    python3 -m pip install --no-build-isolation .
"""

from __future__ import annotations

import os
import pathlib
import re
import shutil
import subprocess
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = pathlib.Path(__file__).resolve().parent


def version() -> str:
    text = (ROOT / "include" / "ocml" / "version.hpp").read_text()
    parts = [re.search(rf"#define OCML_VERSION_{k} (\d+)", text).group(1)
             for k in ("MAJOR", "MINOR", "PATCH")]
    return ".".join(parts)


class CMakeExtension(Extension):
    def __init__(self, name: str) -> None:
        super().__init__(name, sources=[])


class CMakeBuild(build_ext):
    def build_extension(self, ext: Extension) -> None:
        target = pathlib.Path(self.get_ext_fullpath(ext.name)).resolve()
        given = os.environ.get("OCML_BUILD_DIR")
        if given:
            build = pathlib.Path(given).resolve()
            if not (build / "python").is_dir():
                sys.exit(f"OCML_BUILD_DIR={given} was not configured with -DOCML_BUILD_PYTHON=ON")
        else:
            build = pathlib.Path(self.build_temp).resolve() / "cmake"
            subprocess.check_call([
                "cmake", "-S", str(ROOT), "-B", str(build), "-DCMAKE_BUILD_TYPE=Release",
                "-DOCML_BUILD_PYTHON=ON", "-DOCML_BUILD_TESTS=OFF", "-DOCML_BUILD_CLI=OFF",
                "-DOCML_BUILD_BENCHMARKS=OFF", f"-DPython_EXECUTABLE={sys.executable}"])
        jobs = os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL") or str(os.cpu_count() or 1)
        subprocess.check_call(["cmake", "--build", str(build), "--target", "ocml_python",
                               "-j", jobs])
        built = sorted((build / "python" / "ocml").glob("_ocml*.so"))
        if not built:
            sys.exit(f"no _ocml extension in {build / 'python' / 'ocml'}")
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(built[0], target)


setup(
    name="ocml",
    version=version(),
    description="Exact chat markup for LLMs: render, tokenize, parse and stream-decode",
    license="Apache-2.0",
    packages=["ocml"],
    package_dir={"": "python"},
    package_data={"ocml": ["py.typed", "*.pyi"]},
    ext_modules=[CMakeExtension("ocml._ocml")],
    cmdclass={"build_ext": CMakeBuild},
    python_requires=">=3.9",
    install_requires=["numpy"],
    zip_safe=False,
)
