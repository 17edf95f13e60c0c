"""``citewise explain RUN_ID`` and ``citewise feedback --token …``: provenance and ratings."""

from __future__ import annotations

import argparse
import sys

from citewise.cli.common import add_data_dir, open_kb

__all__ = ["register"]


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("explain", help="print a run's provenance (PROV-O) as Turtle or JSON-LD")
    p.add_argument("run_id", metavar="RUN_ID")
    p.add_argument("--format", default="turtle", choices=["turtle", "json-ld", "trig", "nquads"])
    add_data_dir(p, tenant=True)
    p.set_defaults(func=explain)

    f = sub.add_parser("feedback", help="rate a run's answer or one of its documents (0-3)")
    f.add_argument("--token", required=True, help="trajectory.feedback_token of the answer")
    f.add_argument("--rating", required=True, type=int, choices=range(4), metavar="0-3")
    f.add_argument("--document", type=int, metavar="N", help="rate document N (one-based)")
    f.add_argument("--snippet", type=int, metavar="I", help="rate snippet I of that document")
    f.add_argument("--comment", help="free text")
    add_data_dir(f, tenant=True)
    f.set_defaults(func=feedback)


def explain(args: argparse.Namespace) -> int:
    from citewise.grounding.export import run_provenance

    with open_kb(args, must_exist=True) as kb:
        sys.stdout.write(run_provenance(kb.store, kb.tenant, args.run_id, args.format))
    return 0


def feedback(args: argparse.Namespace) -> int:
    from citewise.grounding.feedback import FeedbackService, get_or_create_secret

    with open_kb(args, must_exist=True) as kb:
        service = FeedbackService(kb.store, get_or_create_secret(kb.store))
        record_id = service.submit(args.token, args.rating, document_index=args.document,
                                   snippet_index=args.snippet, comment=args.comment)
    print(f"feedback {record_id} recorded")
    return 0
