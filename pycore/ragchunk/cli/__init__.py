"""Command line: ``python -m ragchunk calc | compare | models | tokens | preview | split | evaluate | llms | context``.

Bad input prints one line on stderr per flag or file at fault, naming it and the fix: a bad
flag or value exits with 2, a document that cannot be read (or PATH that holds none) with 1
(:data:`ragchunk.cli.parser.EXIT_CODES`).

The package, imports running down: :func:`main` here; ``commands`` (calc, models, tokens,
preview) over ``batch`` (calc PATH, compare, split); at the bottom ``forms`` (flags to
settings), ``parser`` (the flags, exit codes), ``output`` (what is printed and written) and
``files`` (finding and reading files).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from typing import TextIO

from ..errors import RagchunkError
from ..options.fields import FormErrors
from . import batch, commands, evaluate, planner
from .commands import DocumentError
from .forms import FLAGS
from .output import say
from .parser import EXIT_FAILED, EXIT_INTERNAL, EXIT_INTERRUPTED, EXIT_USAGE, UsageError, build_parser


def main(argv: Sequence[str] | None = None, out: TextIO | None = None, stdin: TextIO | None = None) -> int:
    """Run the CLI; return the exit code: 0; 2 for a bad flag or value (a usage error); 1 for a
    document that cannot be read or split (missing, unreadable, damaged, not text, empty: the
    same for every command), PATH that holds no document (an empty folder, every file skipped
    or left out) or an output that cannot be written; 130 on Ctrl-C; 70 for a bug."""
    out = out or sys.stdout
    stdin = stdin or sys.stdin
    try:
        args = build_parser().parse_args(argv)
        code = {"calc": lambda: commands.run_calc(args, out, stdin),
                "tokens": lambda: commands.run_tokens(args, out, stdin),
                "preview": lambda: commands.run_preview(args, out, stdin),
                "split": lambda: batch.run_split(args, out, stdin),
                "models": lambda: commands.run_models(args, out),
                "compare": lambda: batch.run_compare(args, out, stdin),
                "evaluate": lambda: evaluate.run_evaluate(args, out, stdin),
                "llms": lambda: planner.run_llms(args, out),
                "context": lambda: planner.run_context(args, out)}[args.command]()
        out.flush()  # here, so that a full disk is said as such, not at exit
    except UsageError as err:
        say(f"ragchunk: error: {err}")
        return EXIT_USAGE
    except DocumentError as failed:  # its message names the file, as split's and calc's do
        say(f"ragchunk: error: {failed.error.message}")
        return EXIT_FAILED
    except RagchunkError as err:
        errors = err.errors if isinstance(err, FormErrors) else [err]
        for error in errors:
            say(f"ragchunk: error: {FLAGS.get(error.field, error.field)}: {error.message}")
        return EXIT_USAGE
    except BrokenPipeError:
        return 0
    except KeyboardInterrupt:
        say("ragchunk: interrupted")
        return EXIT_INTERRUPTED
    except OSError as err:  # writing the output failed (a full disk, a closed terminal)
        say(f"ragchunk: error: cannot write the output: {err.strerror or err}")
        return EXIT_FAILED
    except Exception as err:  # a bug: one line, never a traceback (RAGCHUNK_DEBUG=1 shows it)
        if os.environ.get("RAGCHUNK_DEBUG"):
            raise
        say(f"ragchunk: internal error: {type(err).__name__}: {err} (this is a bug in ragchunk; "
            "RAGCHUNK_DEBUG=1 shows where)")
        return EXIT_INTERNAL
    return code or 0
