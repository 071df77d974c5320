"""`xtalk` entry point. Exit codes: 0 ok, 1 a KPI gate failed, 2 bad spec or usage,
3 infrastructure failure, 130 interrupted (Ctrl-C / SIGTERM)."""
from __future__ import annotations

import argparse
import sys

from .. import __version__
from ..errors import XtalkError
from . import calibrate_cmd, compare_cmd, host_cmd, images_cmd, lab_cmd, list_cmd, query_cmd, report_cmd, run_cmd, show_cmd, spec_cmd

COMMANDS = (run_cmd, spec_cmd, list_cmd, show_cmd, host_cmd, query_cmd, report_cmd, compare_cmd, calibrate_cmd,
            images_cmd, lab_cmd)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="xtalk", description=__doc__.split("\n")[0] if __doc__ else None)
    parser.add_argument("--version", action="version", version=f"xtalk {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for module in COMMANDS:
        module.add_parser(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.handler(args)
    except XtalkError as e:
        print(f"xtalk: error: {e}", file=sys.stderr)
        return e.exit_code
    except KeyboardInterrupt:
        print("xtalk: interrupted; every guest was stopped and what was measured is stored", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
