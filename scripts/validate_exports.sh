#!/usr/bin/env bash
# Validates the design exports of `cargo run --example design` with the
# tools that read them, installed from PyPI into a throwaway virtualenv:
# cfn-lint (CloudFormation's resource schemas) on the template, and the
# schema validator of AWS's DynamoDB data-modelling tools
# (awslabs.dynamodb-mcp-server, without its server's dependencies: the
# validator needs none) on schema.json. Versions are pinned so a run is
# reproducible. NoSQL Workbench publishes no schema: examples/design/tests.rs
# checks what its files and import errors show.
set -euo pipefail
cd "$(dirname "$0")/.."
exports=examples/design/exports
venv=$(mktemp -d)
trap 'rm -rf "$venv"' EXIT
python3 -m venv "$venv"
"$venv/bin/pip" install --quiet cfn-lint==1.58.0
"$venv/bin/pip" install --quiet --no-deps awslabs.dynamodb-mcp-server==2.1.8
"$venv/bin/cfn-lint" "$exports/AppTable.cloudformation.json"
echo "cfn-lint: $exports/AppTable.cloudformation.json is valid"
"$venv/bin/python" - "$exports/AppTable.schema.json" <<'PY'
import sys
from awslabs.dynamodb_mcp_server.repo_generation_tool.core.schema_validator import SchemaValidator
validator = SchemaValidator(strict_mode=True)
result = validator.validate_schema_file(sys.argv[1])
print(validator.format_validation_result())
sys.exit(0 if result.is_valid else 1)
PY
