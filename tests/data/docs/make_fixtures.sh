#!/bin/sh
# Regenerates the document fixtures of tests/unit/test_readers*.py from the sources here
# (guide.md, site-*.html, styles.fodt, make_fixtures.py), with the tools real documents come from:
#   apt-get install -y pandoc libreoffice-writer-nogui
#   pip install nbformat python-docx msoffcrypto-tool   (PYTHON names that interpreter)
# Checked with pandoc 2.17.1.1, LibreOffice 7.4.7.2, nbformat 5.11.1, python-docx 1.2.0,
# msoffcrypto-tool 6.1.0. Tools stamp dates into their output, so bytes differ run to run.
set -eu
cd "$(dirname "$0")"
PYTHON=${PYTHON:-python3}
profile=$(mktemp -d)
trap 'rm -rf "$profile"' EXIT

pandoc guide.md -s --toc -B site-before.html -A site-after.html -o guide.html
pandoc guide.md -o guide.docx
pandoc guide.md --toc -t epub3 -o guide.epub
pandoc guide.md -t epub2 -o guide-epub2.epub
pandoc guide.md -s -t rst -o guide.rst
pandoc guide.md -o "$profile/guide.odt"
soffice --headless "-env:UserInstallation=file://$profile/lo" --convert-to docx --outdir "$profile" \
    "$profile/guide.odt" styles.fodt >/dev/null 2>&1
cp "$profile/guide.docx" guide-lo.docx
cp "$profile/styles.docx" styles-lo.docx
"$PYTHON" make_fixtures.py notebook word_styles encrypted
