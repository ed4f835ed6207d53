"""Every command the docs give (README.md and docs/*.md code blocks) still runs as written.

A fenced block with no language, or `sh`/`shell`/`bash`/`console`, is a block of commands;
```text and every other language are not. Each command of such a block is checked without
starting the service:

- Python programs (`python ...`, `.venv/bin/python ...`, `gunicorn ...`) run under
  tests/docs/argv_check.py, which stops right after their argument parsing: a removed option,
  a renamed command or an option in the wrong place fails as it would for a reader;
- `python -m pip install -r FILE`: the files exist; `scripts/...`: the script exists and is
  executable, and its arguments parse (scripts/loadtest: bench/load.py's; scripts/test:
  pytest's); `celery ...`: the same command line with `--help` appended;
- blocks that are shell programs (loops, functions) pass `bash -n`;
- commands that need a running service or the reader's shell (`curl`, `export`, `grep`, ...)
  are listed in NEEDS_A_SERVICE_OR_SHELL, and tests/test_deploy.py runs the health check.

Inline code that is a whole command (starting `python `, `.venv/bin/python `, `celery -A `,
`gunicorn ` or `scripts/` with an argument) is checked the same way. A command with an unknown program fails the test:
add a check for it here, or the program to NEEDS_A_SERVICE_OR_SHELL.
"""

from __future__ import annotations

import os
import re
import shlex
import stat
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
ARGV_CHECK = ROOT / "tests" / "docs" / "argv_check.py"
PARSED = "argv_check: PARSED"
COMMAND_BLOCK_LANGUAGES = {"", "sh", "shell", "bash", "console"}
PYTHONS = {"python", "python3", ".venv/bin/python"}
# Programs that act on a running service, the machine or the reader's shell: not run here.
NEEDS_A_SERVICE_OR_SHELL = {
    *("curl", "export", "grep", "sleep", "cd", "source", "echo", "cat", "ls", "mkdir", "cp"),
    *("tail", "kill", "sudo", "ip", "systemctl", "journalctl", "docker", "honcho", "foreman"),
    *("redis-cli", "redis-server", "psql", "createdb", "dropdb", "pg_ctlcluster", "pg_isready"),
}
# Command-line programs built on click: their options are checked with `--help` appended.
CLICK_PROGRAMS = {"celery", "uvicorn", "openapi-python-client"}
# The module each of them runs as (`python -m MODULE`).
CLICK_MODULES = {"openapi-python-client": "openapi_python_client"}
SHELL_PROGRAM = re.compile(r"^\s*(for|while|if)\b|\(\)\s*\{|^\s*done\b", re.M)
# Inline code that is a complete command, not a name (`scripts/serve`) or a synopsis.
INLINE_COMMAND = re.compile(
    r"`((?:python3? |\.venv/bin/python |scripts/[\w-]+ |celery -A |gunicorn )[^`]+)`"
)
# The options of the scripts that are not Python programs.
SCRIPT_OPTIONS = {"scripts/production-smoke": {"--keep"}, "scripts/messages": {"--compile"}}
# What separates commands on one line.
SEPARATORS = {"&&", "||", ";", "|"}


@dataclass(frozen=True)
class Command:
    where: str
    argv: tuple[str, ...]

    def __str__(self) -> str:
        return f"{self.where}: {shlex.join(self.argv)}"


def doc_files() -> list[Path]:
    return [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def code_blocks(path: Path) -> list[tuple[int, str, str]]:
    """(line, language, body) of each fenced block."""
    text = path.read_text()
    found = []
    # The language is the info string's first word (```json deal is a json block).
    for match in re.finditer(r"^```([^\n`]*)\n(.*?)^```", text, re.S | re.M):
        line = text[: match.start()].count("\n") + 1
        language = (match.group(1).split() or [""])[0]
        found.append((line, language, match.group(2)))
    return found


def logical_lines(body: str) -> list[str]:
    """Lines with backslash continuations joined."""
    return body.replace("\\\n", " ").splitlines()


def split_commands(line: str) -> list[list[str]]:
    lexer = shlex.shlex(line, posix=True, punctuation_chars=";&|")
    lexer.whitespace_split = True
    lexer.commenters = "#"
    commands: list[list[str]] = [[]]
    for token in lexer:
        if token in SEPARATORS:
            commands.append([])
        else:
            commands[-1].append(token)
    # VAR=value prefixes set the environment of the command; the program comes after them.
    stripped = []
    for argv in commands:
        while argv and re.match(r"^[A-Z_][A-Z0-9_]*=", argv[0]):
            argv = argv[1:]
        if argv:
            stripped.append(argv)
    return stripped


def documented_commands() -> tuple[list[Command], list[tuple[str, str]]]:
    """The commands of the docs, and the shell-program blocks (where, body)."""
    commands: list[Command] = []
    programs: list[tuple[str, str]] = []
    for path in doc_files():
        name = path.relative_to(ROOT)
        for line, language, body in code_blocks(path):
            if language not in COMMAND_BLOCK_LANGUAGES:
                continue
            where = f"{name}:{line}"
            if SHELL_PROGRAM.search(body):
                programs.append((where, body))
                continue
            for text in logical_lines(body):
                commands += [Command(where, tuple(argv)) for argv in split_commands(text)]
        text = path.read_text()
        for match in INLINE_COMMAND.finditer(text):
            where = f"{name}:{text[: match.start()].count(chr(10)) + 1}"
            commands += [Command(where, tuple(argv)) for argv in split_commands(match.group(1))]
    return commands, programs


def _run(argv: list[str], timeout: float = 120) -> subprocess.CompletedProcess[str]:
    # Development settings: a dry run needs no service (manage.py loads the apps, no more).
    env = {k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "REDIS_URL"}}
    env["DEBUG"] = "1"
    return subprocess.run(
        argv, cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout, check=False
    )


def _python_dry_run(args: list[str]) -> str | None:
    """None when the arguments parse, else what went wrong."""
    if args[:3] == ["-m", "pip", "install"] and "-r" not in args:
        paths = [a for a in args[3:] if not a.startswith("-")]
        missing = [p for p in paths if not (ROOT / p).exists()]
        return f"missing paths {missing}" if missing or not paths else None
    if args[:2] == ["-m", "pip"]:
        requirements = [args[i + 1] for i, a in enumerate(args) if a == "-r"]
        missing = [r for r in requirements if not (ROOT / r).is_file()]
        return f"missing requirement files {missing}" if missing or not requirements else None
    if args[:1] == ["-c"]:
        return None  # a one-liner: nothing to parse
    if args[:2] == ["-m", "pytest"]:
        # Collected, not run: the options, markers and paths must be valid. Collecting the
        # whole suite takes a minute or more on a busy machine: a generous limit.
        run = _run([sys.executable, "-m", "pytest", "--collect-only", "-q", *args[2:]], 600)
        return None if run.returncode in (0, 5) else f"pytest refused {args[2:]}: {run.stdout}"
    run = _run([sys.executable, str(ARGV_CHECK), *args])
    if run.returncode != 0:
        return f"exit {run.returncode}: {run.stderr[-1500:]}"
    return None


def check(command: Command) -> str | None:
    """None when the command runs as written (as far as it can without a service)."""
    program, *args = command.argv
    if program in PYTHONS:
        return _python_dry_run(args)
    if program == "gunicorn":
        return _python_dry_run(["-m", "gunicorn", *args])
    if program in CLICK_PROGRAMS:
        module = CLICK_MODULES.get(program, program)
        run = _run([sys.executable, "-m", module, *args, "--help"])
        return None if run.returncode == 0 else f"exit {run.returncode}: {run.stderr[-1500:]}"
    if program.startswith("scripts/"):
        script = ROOT / program
        if not script.is_file() or not script.stat().st_mode & stat.S_IXUSR:
            return f"{program} is not an executable file"
        if program == "scripts/loadtest":
            return _python_dry_run(["bench/load.py", *args])
        if program == "scripts/test" and args:
            run = _run(
                [sys.executable, "-m", "pytest", "--collect-only", "-q", *args, "tests/docs/"]
            )
            return None if run.returncode in (0, 5) else f"pytest refused {args}: {run.stdout}"
        allowed = SCRIPT_OPTIONS.get(program, set())
        return None if set(args) <= allowed else f"{program} does not take {args}"
    if program in NEEDS_A_SERVICE_OR_SHELL:
        return None
    return f"unknown program {program!r}: add a check to tests/docs/test_commands.py"


COMMANDS, SHELL_PROGRAMS = documented_commands()


def test_the_docs_have_commands_to_check():
    # The extraction itself works: the client example the issue was about is among them.
    shown = {shlex.join(c.argv) for c in COMMANDS}
    assert "python examples/canasta_client.py new --bots 3 --hands 1" in shown
    assert "python manage.py check --deploy --fail-level WARNING" in shown
    assert SHELL_PROGRAMS


@pytest.mark.parametrize("command", COMMANDS, ids=str)
def test_a_documented_command_runs_as_written(command: Command):
    problem = check(command)
    assert problem is None, f"{command}\n{problem}"


@pytest.mark.parametrize(("where", "body"), SHELL_PROGRAMS, ids=[w for w, _ in SHELL_PROGRAMS])
def test_a_documented_shell_program_is_valid_shell(where: str, body: str):
    run = subprocess.run(["bash", "-n"], input=body, capture_output=True, text=True, check=False)
    assert run.returncode == 0, f"{where}: {run.stderr}"


def test_a_wrong_option_is_caught():
    # The check is not vacuous: the client's old parser refused options after the command.
    bad = Command("test", ("python", "examples/canasta_client.py", "new", "--no-such-option"))
    assert check(bad) is not None
