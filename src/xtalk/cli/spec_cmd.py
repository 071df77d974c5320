"""`xtalk spec check SPEC` (validate, list every problem, tell what the design can answer
(xtalk.design), run nothing) and
`xtalk spec schema` (JSON Schema of campaign specs)."""
from __future__ import annotations

import json


from ..errors import SpecError
from .common import add_command, add_out, add_set, backends_text, console, load_spec


ORDER = 20  # its place in `xtalk --help`


def add_parser(sub) -> None:
    p = add_command(sub, "spec", "check a campaign spec or print its JSON Schema", [
        "xtalk spec check experiments/quickstart.toml", "xtalk spec schema > campaign.schema.json"])
    inner = p.add_subparsers(dest="spec_command", required=True, metavar="ACTION")
    check = add_command(inner, "check", "validate a spec and run nothing: every problem with its field and line, and "
                        "what its design can answer (the design check)", ["xtalk spec check experiments/quickstart.toml",
                                 "xtalk spec check experiments/quickstart.toml --set run.repetitions=5"])
    check.add_argument("spec", metavar="SPEC", help="campaign spec (TOML file)")
    add_set(check)
    add_out(check)  # where earlier campaigns of the spec tell the noise
    check.set_defaults(handler=check_spec)
    schema = add_command(inner, "schema", "print the JSON Schema of campaign specs (for an editor's completion)",
                         ["xtalk spec schema > campaign.schema.json"])
    schema.set_defaults(handler=print_schema)


def check_spec(args) -> int:
    from ..host.metadata import machine_facts
    from ..spec.plan import plan
    from ..spec.run_caches import with_caches
    from .design_output import print_design
    spec, raw, text = load_spec(args.spec, args.overrides)
    runs, unanswered = with_caches(plan(spec, raw), args.out, machine_facts())
    if unanswered:  # a size against a cache level this host and backend lack (spec/run_caches.py)
        raise SpecError(args.spec, unanswered)
    from ..design import check_design
    print_design(check_design(spec, raw, runs, text, args.out), spec, args.spec, len(runs))
    configs = len({r.config_id for r in runs})
    console().print(
        f"{args.spec}: ok — campaign {spec.name!r}, {backends_text(runs)}, "
        f"{configs} configuration(s), {len(runs)} run(s)")
    return 0


def print_schema(args) -> int:
    from ..spec.model import Campaign

    schema = Campaign.model_json_schema()
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["title"] = "xtalk campaign spec"
    print(json.dumps(schema, indent=2))
    return 0
