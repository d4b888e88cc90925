"""The command line: flags, the interactive loop, in-chat commands, and piped use."""

from __future__ import annotations

import argparse
import functools
import json
import os
import re
import sys
from pathlib import Path

from . import transport
from .session import DEFAULTS, Session
from .store import Store, default_dir, to_markdown
from .tree import path as branch

HELP = """commands:
  /new [NAME]        start a conversation (NAME, or a new dated one)
  /list              conversations, most recent first
  /open NAME         switch to a conversation
  /history           the messages, numbered (for /pin)
  /system [TEXT|-]   show, set or (with -) clear the system prompt
  /set KEY VALUE     template, adapter, max_turns, max_new_tokens, temperature, compact, recall
  /retry             resend the last message that failed or got no reply
  /undo              remove the last exchange
  /pin N, /unpin N   keep message N whatever the trim (or not)
  /summary           the summary the server made of older messages
  /export md FILE    Markdown; /export json FILE: the page's format (import it there)
  /import FILE       a page export (one conversation or "Export all")
  /help, /quit       this, and leave (Ctrl-D too; Ctrl-C stops a reply, twice leaves)
a message over several lines: end a line with a backslash to go on, or put it between two
lines of three double quotes; flags (--system, --max-tokens, ...) apply to this run only,
/set and /system save in the conversation"""


def report_line(reply: dict) -> str:
    """What reached the model and the token usage, as the source program printed its counts."""
    parts = []
    r = reply.get("report")
    if r:
        parts.append(f"history {r['used']}/{r['received']} used")
        for key in ("pinned", "recalled"):
            if r.get(key):
                parts.append(f"{len(r[key])} {key}")
        if r.get("summarised"):
            parts.append(f"{r['summarised']} summarised")
        lost = r.get("lost", r.get("dropped", 0))
        if lost:
            parts.append(f"{lost} dropped and in no summary")
    u = reply.get("usage")
    if u:
        parts.append(f"tokens {u['prompt_tokens']} in, {u['completion_tokens']} out")
    if reply.get("status") == "stopped":
        parts.append("stopped")
    elif reply.get("finish_reason") == "length":
        parts.append("cut at the token limit (--max-tokens)")
    if reply.get("compaction"):
        parts.append("summary failed: " + reply["compaction"].get("reason", ""))
    return "[" + " · ".join(parts) + "]" if parts else ""


EXAMPLES = """examples:
  scripts/chat                          the most recent conversation (or a first one)
  scripts/chat -c trip                  resume or create the conversation "trip"
  scripts/chat -c trip --max-tokens 60 --temperature 0.7
  echo "Which city?" | scripts/chat -c trip   prints only the reply (exit 1 on failure)
  scripts/chat --url https://chat.example.org --api-key KEY
  scripts/chat --openai --url http://127.0.0.1:8080/v1   any OpenAI-compatible server
  scripts/chat --import mnemo-export.json                 a page export, then exit

In a chat, /help lists the commands (/list, /open, /history, /pin, /retry, /export ...)."""


def shorten(text: str, width: int) -> str:
    """``text`` on one line, cut at a word boundary with an ellipsis when longer than
    ``width``."""
    flat = " ".join(str(text).split())
    if len(flat) <= width:
        return flat
    cut = flat[:width - 1]
    if " " in cut[width // 2:]:
        cut = cut[:cut.rindex(" ")]
    return cut.rstrip(" ,.;:") + "…"


def ago(ms) -> str:
    """How long ago a millisecond timestamp was, in a few characters."""
    import time

    if not isinstance(ms, (int, float)):
        return "       "
    seconds = max(0.0, time.time() - ms / 1000)
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if seconds >= size:
            return f"{int(seconds // size):>3}{unit} ago"
    return "    now"


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="scripts/chat", description="Chat with a Mnemo server from "
                                "the terminal; conversations are kept as files.", epilog=EXAMPLES,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--url", default=os.environ.get("MNEMO_URL", "http://127.0.0.1:8000"),
                   help="the server (or MNEMO_URL; default %(default)s)")
    p.add_argument("--api-key", default=os.environ.get("MNEMO_API_KEY"),
                   help="or MNEMO_API_KEY")
    p.add_argument("--conversation", "-c", help="resume or create this conversation")
    p.add_argument("--dir", type=Path, default=Path(os.environ.get("MNEMO_CHAT_DIR")
                                                    or default_dir()),
                   help="where conversations are kept (or MNEMO_CHAT_DIR)")
    p.add_argument("--system")
    p.add_argument("--template")
    p.add_argument("--adapter")
    p.add_argument("--max-turns", type=int)
    p.add_argument("--max-tokens", type=int, dest="max_new_tokens")
    p.add_argument("--temperature", type=temperature,
                   help="0: greedy; default: the model's recommended decoding")
    p.add_argument("--no-compact", action="store_true", help="no automatic summaries")
    p.add_argument("--recall", action="store_true",
                   help="recall relevant older messages (the default; turns it back on)")
    p.add_argument("--no-recall", action="store_true",
                   help="no recall: when the history does not fit, keep only the newest messages")
    p.add_argument("--openai", action="store_true",
                   help="talk to any OpenAI-compatible server (llama.cpp, vLLM, Ollama...)")
    p.add_argument("--model", help="with --openai: the model name (default: the first listed)")
    p.add_argument("--import", dest="import_file", type=Path, help="import a page export, exit")
    return p.parse_args(argv)


def temperature(value: str) -> float:
    """A temperature from 0 (greedy) to 5, as the server takes it; anything else is refused."""
    t = float(value)
    if not 0 <= t <= 5:  # NaN too
        raise ValueError(f"{value!r}: a temperature is from 0 to 5, or default")
    return t


def settings_from(args: argparse.Namespace) -> dict:
    out = {k: getattr(args, k) for k in ("system", "template", "adapter", "max_turns",
                                         "max_new_tokens", "temperature")
           if getattr(args, k) is not None}
    if args.no_compact:
        out["compact"] = False
    if args.recall or args.no_recall:
        out["recall"] = not args.no_recall
    return out


class Printable:
    """A terminal stream that shows text, never commands: control characters other than line
    breaks and tabs (escape sequences that set the title, clear the screen or write to the
    clipboard) are shown as U+FFFD. What a server or a file says reaches the terminal only
    through it; the conversation file keeps the text as it came."""

    CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")

    def __init__(self, stream):
        self._stream = stream

    def write(self, text: str) -> int:
        return self._stream.write(self.CONTROL.sub("\ufffd", text))

    def __getattr__(self, name):  # flush, isatty, encoding, ...
        return getattr(self._stream, name)


def main(argv: list[str] | None = None) -> int:
    sys.stdout, sys.stderr = Printable(sys.stdout), Printable(sys.stderr)
    args = parse_args(argv)
    try:
        store = Store(args.dir)
        if args.import_file:
            for name in store.import_file(args.import_file):
                print(f"imported {name}")
            return 0
        if args.conversation:
            name = args.conversation
            store.path(name)  # a bad name stops here, with a message
        else:  # the most recently used one, or a first one
            existing = store.names()
            name = existing[0][0] if existing else "chat"
        session = Session(store, name, url=args.url, api_key=args.api_key, openai=args.openai,
                          model=args.model, overrides=settings_from(args))
        session.open()
    except (ValueError, OSError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    if not sys.stdin.isatty():
        return piped(session)
    return Repl(session, store).run()


def piped(session: Session) -> int:
    """``echo question | scripts/chat -c NAME``: print only the reply, append the exchange."""
    raw = sys.stdin.buffer.read()
    text = raw.decode("utf-8", errors="replace").strip()
    if "\ufffd" in text and "\ufffd".encode() not in raw:
        print("warning: standard input was not UTF-8; undecodable bytes were replaced",
              file=sys.stderr)
    if not text:
        print("error: nothing to send on standard input", file=sys.stderr)
        return 2
    try:
        reply = session.ask(text)
    except KeyboardInterrupt:
        print("\n(stopped; the partial reply is saved)", file=sys.stderr)
        return 130
    except BrokenPipeError:  # the reader went away (| head): the turn is saved, stopped
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    except (transport.ServerError, transport.Unreachable) as err:
        hint = f"run scripts/chat -c {session.name!r} and /retry" if _retryable(err) else \
            "it is kept in the conversation"
        print(f"\nerror: {_why(err)}; your message is saved ({hint})", file=sys.stderr)
        return 1
    print()
    if reply.get("finish_reason") == "length":  # stdout holds the reply alone
        print("(the reply was cut at the token limit; --max-tokens raises it)", file=sys.stderr)
    return 0


def _why(err: Exception) -> str:
    if isinstance(err, transport.ServerError):
        return f"the server answered {err.status}: {err.message.rstrip('.')}"
    return str(err).rstrip(".")


def _retryable(err: Exception) -> bool:
    return isinstance(err, transport.Unreachable) or err.status == 429 or err.status >= 500


class Repl:
    def __init__(self, session: Session, store: Store):
        self.session, self.store = session, store

    def run(self) -> int:
        try:
            count = len(branch(self.session.conv()))
        except ValueError as err:
            print(f"error: {err}")
            return 2
        print(f"mnemo-chat: {self.session.name} ({count} messages) on {self.session.url}; "
              "/help for commands")
        interrupted = False  # a Ctrl-C already pressed: the next one leaves
        while True:
            try:
                line = self.read_message()
            except EOFError:
                print()
                return 0
            except KeyboardInterrupt:
                if interrupted:
                    print()
                    return 0
                interrupted = True
                print("\n(Ctrl-C again or Ctrl-D to leave)")
                continue
            interrupted = False
            if not line.strip():
                continue
            try:
                if line.startswith("/"):
                    if self.command(line.strip()) == "quit":
                        return 0
                else:
                    interrupted = self.turn(functools.partial(self.session.ask, line.strip()))
            except (ValueError, LookupError, IndexError, OSError, TypeError) as err:
                print(f"error: {err}")

    def read_message(self) -> str:
        """One message: a line (lines ending with a backslash go on), or a block between two
        lines of three double quotes."""
        first = input("you> ")
        if first.strip() == '"""':
            lines = []
            while (line := input("... ")).strip() != '"""':
                lines.append(line)
            return "\n".join(lines)
        lines = [first]
        while lines[-1].endswith("\\"):
            lines[-1] = lines[-1][:-1]
            lines.append(input("... "))
        return "\n".join(lines)

    def turn(self, call) -> bool:
        """Run one reply; True when Ctrl-C stopped it (so the next Ctrl-C leaves)."""
        started = {"yes": False}
        write = self.session.write

        def prefixed(text: str) -> None:
            if not started["yes"]:
                started["yes"] = True
                write("bot> ")
            write(text)

        self.session.write = prefixed
        try:
            reply = call()
        except KeyboardInterrupt:
            print("\n[stopped; what arrived is saved]" if started["yes"] else
                  "[stopped before the reply began; /retry resends your message]")
            return True
        except (transport.ServerError, transport.Unreachable) as err:
            hint = "; your message is saved: /retry resends it" if _retryable(err) else \
                "; your message is kept (change it, or /undo)"
            print(("\n" if started["yes"] else "") + f"error: {_why(err)}{hint}")
            return False
        finally:
            self.session.write = write
        if not started["yes"]:
            write("bot> ")
        print()
        line = report_line(reply)
        if line:
            print(line)
        return False

    def command(self, line: str) -> str | None:
        cmd, _, rest = line.partition(" ")
        rest = rest.strip()
        s = self.session
        if cmd in ("/quit", "/exit"):
            return "quit"
        if cmd == "/help":
            print(HELP)
        elif cmd == "/new":
            from datetime import datetime
            name = rest or datetime.now().strftime("chat-%Y%m%d-%H%M%S")
            self.store.path(name)  # a bad name stops here
            if self.store.load(name) is not None:
                raise ValueError(f"{name!r} exists: /open {name} to continue it")
            s.name = name
            s.open()
            print(f"new conversation: {s.name}")
        elif cmd == "/list":
            convs = self.store.names()
            width = max((len(name) for name, _conv in convs), default=4)
            for name, conv in convs:
                title = (conv.get("title") or "").strip()
                about = "" if title.lower() in ("", name.lower(), "new chat") else shorten(title, 50)
                print(f"{'*' if name == s.name else ' '} {name:<{width}}  "
                      f"{len(branch(conv)):>4} msgs  {ago(conv.get('updated'))}  {about}".rstrip())
        elif cmd == "/open":
            if not rest or self.store.load(rest) is None:
                raise LookupError(f"no conversation named {rest!r} (/list shows them)")
            s.name = rest
            print(f"{s.name}: {len(branch(s.conv()))} messages")
        elif cmd == "/history":
            for i, m in enumerate(branch(s.conv()), 1):
                flag = " [pinned]" if m.get("pinned") else ""
                status = f" ({m['status']})" if m.get("status") not in (None, "ok") else ""
                print(f"{i:3d} {m['role']}{flag}{status}: {shorten(m['content'], 200)}")
        elif cmd == "/system":
            if rest:
                s.set(system="" if rest == "-" else rest)
            print("system prompt: " + (s.settings(s.conv()).get("system") or "(none)"))
        elif cmd == "/set":
            key, _, value = rest.partition(" ")
            if key not in DEFAULTS or key == "system":
                raise ValueError(f"unknown setting {key!r}")
            current = DEFAULTS[key]
            if key == "temperature":  # a number, or "default": the model's own
                parsed = None if value.lower() == "default" else temperature(value)
            elif isinstance(current, bool):
                if value.lower() not in ("1", "true", "on", "yes", "0", "false", "off", "no"):
                    raise ValueError(f"{key} is on or off")
                parsed = value.lower() in ("1", "true", "on", "yes")
            else:
                parsed = type(current)(value)  # int, float or str; a bad value is a ValueError
            s.set(**{key: parsed})
            print(f"{key} = {s.conv()['settings'][key]}")
        elif cmd == "/retry":
            self.turn(s.retry)
        elif cmd == "/undo":
            print(f"removed {s.undo()} message(s)")
        elif cmd in ("/pin", "/unpin"):
            m = s.pin(int(rest), on=cmd == "/pin")
            print(f"{'pinned' if m.get('pinned') else 'unpinned'}: {m['content'][:80]}")
        elif cmd == "/summary":
            summary = s.conv().get("summary")
            print(summary["text"] if summary else "(no summary yet: the server makes one when "
                                                  "the conversation nears the model's budget)")
        elif cmd == "/export":
            kind, _, path = rest.partition(" ")
            if kind not in ("md", "json") or not path:
                raise ValueError("usage: /export md FILE or /export json FILE")
            conv = s.conv()
            Path(path).write_text(to_markdown(conv) if kind == "md" else json.dumps(
                conv, ensure_ascii=False, indent=2), encoding="utf-8")
            print(f"exported to {path}")
        elif cmd == "/import":
            if not rest:
                raise ValueError("usage: /import FILE")
            print("imported: " + ", ".join(self.store.import_file(Path(rest))))
        else:
            raise ValueError(f"unknown command {cmd} (/help lists them)")
        return None
