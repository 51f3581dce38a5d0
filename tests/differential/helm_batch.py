#!/usr/bin/env python3
"""Many `helm template` runs in one process, for the differential tests of Helm charts.

Usage: helm_batch.py ORACLE_DIR JOBS.json

JOBS.json is a list of {"chart", "release", "namespace", "values" (a values file),
"kube_version", "api_versions" (a list), "include_crds"}. Prints a JSON list with, per job,
{"ok": manifest text} or {"error": message}. Each job goes through the reference's own
`helm_template.template` (ORACLE_DIR/helm_template.py), exactly as `helm-template` runs it;
only the interpreter start and the library load are shared.
"""

import json
import sys

sys.path.insert(0, sys.argv[1])
import helm_python as helm  # noqa: E402
import helm_template  # noqa: E402


def run(job):
    try:
        with open(job["values"], encoding="utf-8") as fh:
            values = helm.values_from_yaml(fh.read()) or {}
        text = helm_template.template(
            job["chart"], job["release"], job["namespace"], values,
            include_crds=job.get("include_crds", False),
            kube_version=job.get("kube_version") or None,
            api_versions=job.get("api_versions") or None,
        )
        return {"ok": text}
    except KeyError as e:
        # The reference reads the install summary's `manifest`, which Helm leaves out when the
        # release renders no manifest: `helm template` then prints an empty line and the hooks.
        # The reference's own render path assembles exactly that (its manifest part is empty).
        if str(e) != "'manifest'":
            return {"error": f"KeyError: {e}"}
        try:
            return {"ok": helm_template.template(
                job["chart"], job["release"], job["namespace"], values,
                include_crds=job.get("include_crds", False), engine="render",
            )}
        except Exception as again:  # noqa: BLE001
            return {"error": f"{type(again).__name__}: {again}"}
    except SystemExit as e:
        return {"error": str(e)}
    except Exception as e:  # noqa: BLE001 - every refusal of Helm's is a result
        return {"error": f"{type(e).__name__}: {e}"}


def main():
    with open(sys.argv[2], encoding="utf-8") as fh:
        jobs = json.load(fh)
    json.dump([run(job) for job in jobs], sys.stdout)


if __name__ == "__main__":
    main()
