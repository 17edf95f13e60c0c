"""``citewise keys create|list|revoke``: API keys of the HTTP service (stored hashed)."""

from __future__ import annotations

import argparse
import json
import sys
from contextlib import closing

from citewise.cli.common import add_data_dir, open_store

__all__ = ["register"]


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("keys", help="manage API keys of the HTTP service")
    ks = p.add_subparsers(dest="keys_command", metavar="ACTION", required=True)
    c = ks.add_parser("create", help="create a key for a tenant (printed once)")
    c.add_argument("--tenant", required=True, help="the tenant the key acts for")
    c.add_argument("--name", default="", help="a label for the key")
    add_data_dir(c)
    c.set_defaults(func=create)
    ls = ks.add_parser("list", help="list keys (never the keys themselves)")
    ls.add_argument("--tenant", default=None, help="only this tenant's keys")
    ls.add_argument("--json", action="store_true", help="print JSON")
    add_data_dir(ls)
    ls.set_defaults(func=list_keys)
    r = ks.add_parser("revoke", help="revoke a key by its id")
    r.add_argument("key_id", metavar="ID")
    add_data_dir(r)
    r.set_defaults(func=revoke)


def create(args: argparse.Namespace) -> int:
    from citewise.server.auth import create_key

    with closing(open_store(args)) as store:
        record, key = create_key(store, args.tenant, args.name)
    sys.stderr.write(f"created key {record.id} for tenant {record.tenant!r}; "
                     "it is shown only once:\n")
    sys.stdout.write(key + "\n")
    return 0


def list_keys(args: argparse.Namespace) -> int:
    from citewise.store.keys import list_all_api_keys

    with closing(open_store(args)) as store:
        keys = list_all_api_keys(store)
    if args.tenant is not None:
        keys = [k for k in keys if k.tenant == args.tenant]
    rows = [{"id": k.id, "tenant": k.tenant, "name": k.name,
             "created_at": k.created_at.isoformat(),
             "revoked_at": k.revoked_at.isoformat() if k.revoked_at else None} for k in keys]
    if args.json:
        sys.stdout.write(json.dumps(rows, indent=2) + "\n")
        return 0
    for row in rows:
        state = f"revoked {row['revoked_at']}" if row["revoked_at"] else "active"
        sys.stdout.write(f"{row['id']}\t{row['tenant']}\t{row['name'] or '-'}\t"
                         f"{row['created_at']}\t{state}\n")
    return 0


def revoke(args: argparse.Namespace) -> int:
    from citewise.errors import NotFound, UsageError
    from citewise.store.keys import list_all_api_keys

    with closing(open_store(args)) as store:
        match = [k for k in list_all_api_keys(store) if k.id == args.key_id]
        if not match:
            raise NotFound(f"unknown key {args.key_id!r}", code="unknown_api_key")
        if not store.revoke_api_key(match[0].tenant, args.key_id):
            raise UsageError(f"key {args.key_id} is already revoked", code="api_key_revoked")
    sys.stderr.write(f"revoked key {args.key_id}\n")
    return 0
