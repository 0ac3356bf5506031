"""A PEP 517 build backend for the kernelscope module, standard library only: the
wheel is the package folder and its metadata, zipped (pure Python, any platform).
pip calls build_wheel; build_sdist makes a tarball of the same files."""
import base64
import hashlib
import io
import os
import tarfile
import zipfile

NAME, VERSION = "kernelscope", "0.1.0"
HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DIST_INFO = "%s-%s.dist-info" % (NAME, VERSION)
METADATA = ("Metadata-Version: 2.1\nName: %s\nVersion: %s\nSummary: Watch a field of your own program live in a "
            "browser page (the kernelscope C library)\nRequires-Python: >=3.8\n"
            "Requires-Dist: numpy\nProvides-Extra: notebook\nRequires-Dist: anywidget>=0.9; extra == \"notebook\"\n"
            "Requires-Dist: jupyterlab>=4; extra == \"notebook\"\n" % (NAME, VERSION))  # pyproject.toml's dependencies
WHEEL = "Wheel-Version: 1.0\nGenerator: ks_build\nRoot-Is-Purelib: true\nTag: py3-none-any\n"


def _package_files():
    root = os.path.join(HERE, NAME)
    for dirpath, _, names in sorted(os.walk(root)):
        for n in sorted(names):
            if n.endswith(".py"):
                full = os.path.join(dirpath, n)
                yield full, os.path.relpath(full, HERE).replace(os.sep, "/")


def _record_line(arc, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return "%s,sha256=%s,%d" % (arc, digest, len(data))


def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    path = os.path.join(metadata_directory, DIST_INFO)
    os.makedirs(path, exist_ok=True)
    with open(os.path.join(path, "METADATA"), "w") as f:
        f.write(METADATA)
    with open(os.path.join(path, "WHEEL"), "w") as f:
        f.write(WHEEL)
    return DIST_INFO


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    name = "%s-%s-py3-none-any.whl" % (NAME, VERSION)
    records = []
    with zipfile.ZipFile(os.path.join(wheel_directory, name), "w", zipfile.ZIP_DEFLATED) as z:
        for full, arc in _package_files():
            data = open(full, "rb").read()
            z.writestr(arc, data)
            records.append(_record_line(arc, data))
        for arc, text in (("%s/METADATA" % DIST_INFO, METADATA), ("%s/WHEEL" % DIST_INFO, WHEEL)):
            z.writestr(arc, text)
            records.append(_record_line(arc, text.encode()))
        records.append("%s/RECORD,," % DIST_INFO)
        z.writestr("%s/RECORD" % DIST_INFO, "\n".join(records) + "\n")
    return name


def build_sdist(sdist_directory, config_settings=None):
    base = "%s-%s" % (NAME, VERSION)
    name = base + ".tar.gz"
    with tarfile.open(os.path.join(sdist_directory, name), "w:gz") as t:
        for rel in ["pyproject.toml", "_build/ks_build.py"] + [arc for _, arc in _package_files()]:
            t.add(os.path.join(HERE, rel), arcname=base + "/" + rel)
        info = tarfile.TarInfo(base + "/PKG-INFO")
        data = METADATA.encode()
        info.size = len(data)
        t.addfile(info, io.BytesIO(data))
    return name
