# SPDX-License-Identifier: MIT
#
# Make the include server of distcc-pump 3.4 (Debian 12) work on Python
# 3.10 and later.  Its C extension parses strings with "s#" without
# PY_SSIZE_T_CLEAN, which Python 3.10 refuses (distcc bug 454, fixed
# upstream after 3.4): every stat and every compression raises, the
# include server gives up on each file, and distcc preprocesses locally,
# dropping every comment.  This replaces those three functions with
# equivalents: os.path for the stats, python3-lzo for LZO1X-1 (raw, as
# distcc's own dcc_compress_lzo1x_alloc writes it).  The files are read
# as latin-1 by the include server, so encoding back to latin-1 ships
# their bytes unchanged.
#
# Use: PYTHONPATH=<this directory> distcc-pump --startup
# (distcc-pump puts its own directory first, so ours is still searched
# before the standard library's sitecustomize.)
import os

try:
    import distcc_pump_c_extensions as _ext
except ImportError:
    _ext = None

if _ext is not None:
    try:
        _ext.OsPathExists("/")
        _broken = False
    except SystemError:
        _broken = True
    if _broken:
        import lzo

        def _compress(text):
            if isinstance(text, str):
                text = text.encode("latin-1")
            return lzo.compress(text, 1, False)

        _ext.OsPathExists = os.path.exists
        _ext.OsPathIsFile = os.path.isfile
        _ext.CompressLzo1xAlloc = _compress
