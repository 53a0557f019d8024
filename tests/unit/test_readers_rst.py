"""ragchunk.readers.rst: inline markup that runs over the line breaks of its paragraph.

docutils lets a role, a hyperlink reference or an inline literal wrap onto the next line of
the same paragraph; CMake's help (80 of the 8,105 .rst files of a test machine) does it
often. Such markup reads as it does on one line; a line break in the text that is kept
stays, one before a ``<target>`` goes with the target.
"""

from __future__ import annotations

from test_hostile import _grows_linearly

from ragchunk.readers import ReadOptions, rst
from ragchunk.readers.formats import read_document


def read(source: str) -> str:
    return rst.read(source.encode(), "a.rst", ReadOptions()).text


def test_a_role_over_a_line_break_reads_as_on_one_line():
    found = read_document(b"Use :func:`open\n<io.open>` here, per :mod:`email`.\n", "a.rst").text
    assert found == "Use `open` here, per `email`.\n"


def test_a_hyperlink_reference_over_a_line_break_keeps_the_break_in_its_title():
    assert read("Read the `Python\ndocs <https://docs.python.org>`_ now.\n") == "Read the Python\ndocs now.\n"
    assert read("Read the `Python docs <https://docs.python.org>`_ now.\n") == "Read the Python docs now.\n"
    assert read("See the `GNU Coding\nStandards`_ and more.\n") == "See the GNU Coding\nStandards and more.\n"


def test_cmake_help_roles_over_line_breaks():
    # From CMake's Help/variable/CMAKE_STATIC_LINKER_FLAGS_CONFIG_INIT.rst and Help/policy/CMP0077.rst.
    source = ("This variable is meant to be set by a :variable:`toolchain file\n"
              "<CMAKE_TOOLCHAIN_FILE>`.  CMake may prepend or append content to\n"
              "the value.  Use the :variable:`CMAKE_POLICY_DEFAULT_CMP0077\n"
              "<CMAKE_POLICY_DEFAULT_CMP\\<NNNN\\>>` variable, a :ref:`semicolon-separated list <CMake\n"
              "Language Lists>` and :ref:`Cross Compiling for Android with NVIDIA Nsight Tegra Visual Studio\n"
              "Edition`.\n")
    assert read(source) == ("This variable is meant to be set by a toolchain file.  CMake may prepend or append "
                            "content to\nthe value.  Use the CMAKE_POLICY_DEFAULT_CMP0077 variable, a "
                            "semicolon-separated list and Cross Compiling for Android with NVIDIA Nsight Tegra "
                            "Visual Studio\nEdition.\n")


def test_an_escaped_angle_bracket_in_a_target_on_one_line():
    assert read("Use :variable:`CMAKE_POLICY_DEFAULT_CMP0077 <CMAKE_POLICY_DEFAULT_CMP\\<NNNN\\>>` here.\n") == \
        "Use CMAKE_POLICY_DEFAULT_CMP0077 here.\n"


def test_a_name_followed_by_an_underscore_and_a_placeholder_is_no_reference():
    """CMake writes ``CMAKE_<LANG>_FLAGS``: docutils ends no reference before ``<``; it lost its ``_``."""
    source = ("CMAKE_STATIC_LINKER_FLAGS_<CONFIG>_INIT\n---------------------------------------\n\n"
              "Set CMAKE_<LANG>_FLAGS_<CONFIG>, CPACK_WIX_<TOOL>_EXTRA_FLAGS and FOO_=x, but see Python_, "
              "Python_. and `Python`_!\n")
    assert read(source) == ("# CMAKE_STATIC_LINKER_FLAGS_<CONFIG>_INIT\n\nSet CMAKE_<LANG>_FLAGS_<CONFIG>, "
                            "CPACK_WIX_<TOOL>_EXTRA_FLAGS and FOO_=x, but see Python, Python. and Python!\n")


def test_code_roles_and_literals_over_a_line_break_are_code():
    source = "Returns :meth:`~email.message.\nEmailMessage.get` on ``64bit\nWindows`` and ``32`` elsewhere.\n"
    assert read(source) == "Returns `get` on `64bit\nWindows` and `32` elsewhere.\n"


def test_markup_over_a_line_break_in_list_items_definitions_and_quotes():
    source = ("- one :ref:`long\n  title <target>` item\n- two\n\n"
              "Term\n   A :rfc:`5322\n   #section-3` reference.\n\nThen\n\n"
              "   Quoted `link\n   text <https://example.com>`_ here.\n")
    assert read(source) == ("- one long\n  title item\n- two\n\nTerm\n: A RFC 5322 reference.\n\nThen\n\n"
                            "> Quoted link\n> text here.\n")


def test_markup_never_runs_over_a_paragraph_or_into_code():
    assert read("A :func:`open\n\nB` x.\n") == "A :func:`open\n\nB` x.\n"
    assert read("A `link\n\n<https://x.org>`_ x.\n") == "A `link\n\n<https://x.org>`_ x.\n"
    assert read("Opens :func:`open\n::\n\n    <io.open>`\n") == "Opens :func:`open\n\n```\n<io.open>`\n```\n"
    # A line break right after the opening backtick or right before the closing one is no markup.
    assert read("A :func:`\nopen` and :func:`open\n` x.\n") == "A :func:`\nopen` and :func:`open\n` x.\n"


def test_many_unclosed_backticks_over_many_lines_are_read_in_linear_time():
    """Counted in calls, not timed (see test_hostile); the regexes' backtracking is checked there."""
    small, large = ("Text `a and :func:`b\n" * n + "end.\n" for n in (5_000, 20_000))
    _grows_linearly(read, small, large)
    source = "Text `a and :func:`b\n" * 50_000 + "end.\n"
    assert read(source) == source  # no markup: every closing backtick has a space before it
