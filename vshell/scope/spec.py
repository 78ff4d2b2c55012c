"""What a scope's server is started with: the mounts and limits from the settings.

The worktree (every root of the scope) is mounted at its own host path, so paths the
agent's other tools print and the paths inside vshell agree.  The fingerprint covers all
that the server was built from; a call whose settings differ (vshell.toml edited, other
flags) restarts the server rather than running under stale rules.
"""

from __future__ import annotations

import hashlib
import json
import os
from typing import Any

from vshell.config import Settings
from vshell.scope.resolve import Scope


def overlay_dir_for(scope: Scope) -> str:
    """Where a cow scope keeps its pending changes between server lifetimes."""
    from vshell.cachedir import cache_dir
    from vshell.scope.runtime import runtime_dir

    base = cache_dir() or runtime_dir()
    path = os.path.join(base, "scopes", scope.ident)
    os.makedirs(path, mode=0o700, exist_ok=True)
    return path


def build_spec(scope: Scope, settings: Settings, cwd: str,
               env: dict[str, str] | None = None) -> dict[str, Any]:
    mounts = [[root, root, settings.worktree_mount] for root in scope.roots]
    for m in settings.mounts:
        if not os.path.isdir(m.host):
            raise ValueError(f"mount {m.host}: no such directory")
        mounts.append([m.host, m.vpath, m.mode])
    real = os.path.realpath(cwd)
    start = next((real for root in scope.roots
                  if real == root or real.startswith(root.rstrip("/") + "/")), scope.roots[0])
    spec: dict[str, Any] = {
        "scope": scope.key,
        "mounts": mounts,
        "deny": list(settings.deny),
        "allow_net": list(settings.allow_net),
        "output_limit": settings.output_limit,
        "memory_fs_limit": settings.memory_fs_limit,
        "memory_limit": settings.memory_limit,
        "idle_timeout": settings.idle_timeout,
        "overlay_dir": None,
        "env": dict(env or {}),
    }
    if any(m[2] == "cow" for m in mounts):
        spec["overlay_dir"] = overlay_dir_for(scope)
    spec["fingerprint"] = hashlib.sha256(json.dumps(spec, sort_keys=True).encode()).hexdigest()
    spec["cwd"] = start  # where the session starts; it then keeps its own cwd
    return spec
