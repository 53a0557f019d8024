"""The steps of build.py, one module each, in the order a build runs them.

npm      node_modules/ as package-lock.json pins it (npm ci)
tables   the tokenizers' tables in pycore/ragchunk/tables/data/, from pinned packages
wheel    the core's wheel, and the page's smaller one
site     dist/: the pages, spec.js, the assets, sw.js and build.json
offline  dist/ragchunk-offline.html, the single file that works from disk
serve    the development server
test     what a fresh machine lacks, then pytest

policy is the Content-Security-Policy of the site and of the offline file; common the
folders and the log and run every step uses. Only site and tables import the core.
"""
