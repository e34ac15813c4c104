"""The CLI's flags, built from the one table of options (``api.options.OPTIONS``), and the parser that answers a
bad value in one line.

Every subcommand gets its flags from ``add_options(parser, command)``: the same flag has the same name, type,
default, meaning and check on every subcommand that has it (a subcommand whose default differs says why in the
help, and ``Option.defaults`` records it). ``rerank_options(args, command)`` turns the parsed flags into
``RerankOptions``, the object every entry point hands to the one path.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any, NoReturn

from coderank_evalplus.api.options import (
    BOTH,
    SWITCH,
    Option,
    OptionError,
    RerankOptions,
    check_rules,
    check_value,
    command_options,
    flat_tests,
    option,
)


class HelpFormatter(argparse.HelpFormatter):
    """Shows each flag's default after its help, where it has one worth showing."""

    def _get_help_string(self, action: argparse.Action) -> str:
        text = action.help or ""
        default = action.default
        if (default in (None, False, True, argparse.SUPPRESS) or "default:" in text or not action.option_strings
                or isinstance(action, (argparse._StoreTrueAction, argparse._StoreFalseAction))):
            return text
        shown = ",".join(map(str, default)) if isinstance(default, (list, tuple)) else str(default)
        return f"{text} (default: {escaped(shown)})"


class Parser(argparse.ArgumentParser):
    """argparse, with errors in one line (``coderank-evalplus rerank: error: argument --workers: expected an
    integer ≥ 1, got '-3'``) and exit status 2, and defaults shown in ``--help``."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", HelpFormatter)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message}\n")


def _argparse_type(opt: Option):
    def parse(text: str) -> Any:
        try:
            return check_value(opt.name, opt.kind, text, opt.flag)
        except ValueError as exc:
            # argparse prefixes "argument --flag: "; the message then says what the flag accepts
            raise argparse.ArgumentTypeError(str(exc).split(": ", 1)[-1]) from None
    parse.__name__ = opt.name
    return parse


def add_options(p: argparse.ArgumentParser, command: str, skip: tuple[str, ...] = ()) -> None:
    """Add every option of ``command`` (``Option.commands``) as a flag, less ``skip``."""
    for opt in command_options(command):
        if opt.name in skip:
            continue
        add_option(p, opt, command)


def escaped(text: str) -> str:
    """``text`` as argparse prints it: argparse %-formats every help string (``%(default)s``), so a plain ``%``
    (``a 95 % interval``) would end ``--help`` in a TypeError."""
    return text.replace("%", "%%")


def add_option(p: argparse.ArgumentParser, opt: Option, command: str) -> None:
    default, text = opt.default_for(command), escaped(opt.help)
    if opt.name == "progress":
        p.add_argument("--quiet", dest="progress", action="store_false", help="no progress bars")
        return
    if opt.name == "solutions":
        p.add_argument("--solutions", "--samples", dest="solutions", required=command == "rerank", help=text)
        return
    if opt.cli == SWITCH:
        p.add_argument(opt.flag, action="store_true", help=text)
        return
    if opt.cli == BOTH:
        p.add_argument(opt.flag, action=argparse.BooleanOptionalAction, default=default, help=text)
        return
    if opt.name == "tests":  # comma-separated, or repeated: the lists are joined
        p.add_argument("--tests", action="append", type=_argparse_type(opt), default=None, help=text)
        return
    p.add_argument(opt.flag, type=_argparse_type(opt), default=default, metavar=opt.metavar, help=text)


def check_combinations(args: argparse.Namespace) -> None:
    """The checks that join options (``api.options.RULES``) on a subcommand's parsed flags, naming the flags."""
    check_rules(vars(args), shown=lambda o: o.flag)


def rerank_options(args: argparse.Namespace, command: str) -> RerankOptions:
    """The ``RerankOptions`` the parsed flags of ``command`` describe (options it lacks keep their defaults)."""
    values = {}
    for name in RerankOptions.__dataclass_fields__:
        if hasattr(args, name):
            values[name] = getattr(args, name)
    if "tests" in values:
        values["tests"] = flat_tests(values["tests"])
    if "methods" in values and values["methods"] is None:
        values.pop("methods")
    if values.get("executor") != "ray" and getattr(args, "dp", 1) > 1:  # run --dp: vLLM's Ray, not the executor's
        values.pop("ray_address", None)
    try:
        return RerankOptions.from_mapping(values)
    except OptionError as exc:  # the library names options; the CLI says flags
        raise OptionError(as_flags(str(exc))) from None


def as_flags(message: str) -> str:
    """A library message about options (``ray_address: needs executor ray``) in the CLI's words
    (``--ray-address: needs --executor ray``): the option it starts with, and the options it names in its first
    clause, become flags; the rest (a list of methods, a file's name) is left as it is."""
    import re

    from coderank_evalplus.api.options import OPTIONS

    names = {o.name for o in OPTIONS if o.commands}
    head, sep, rest = message.partition(":")
    if head.split(" ")[0] not in names:
        return message
    flagged = re.sub(r"\b[a-z][a-z_]*\b", lambda m: option(m.group(0)).flag if m.group(0) in names else m.group(0),
                     head)
    if rest.startswith(" needs "):  # "needs executor ray"
        rest = re.sub(r"(?<= needs )([a-z_]+)", lambda m: option(m.group(1)).flag if m.group(1) in names
                      else m.group(1), rest)
    return flagged + sep + rest


def fail(message: str) -> NoReturn:
    """One line on stderr and exit status 2 (a usage error found after parsing)."""
    print(f"error: {message}", file=sys.stderr)
    raise SystemExit(2)


__all__ = ["Parser", "add_options", "add_option", "check_combinations", "rerank_options", "flat_tests", "fail",
           "option"]
