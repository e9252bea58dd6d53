"""Remove secrets and personal details from text before it leaves the machine.

Pasted env reports, configs, shell histories and tracebacks often carry credentials,
e-mail addresses and home directories that name the user. :func:`redact` replaces each
secret with ``[REDACTED:<kind>]`` and keeps the words around it, so the report still
reads (``HF_TOKEN=[REDACTED:hf-token]``); a home directory becomes ``~``. It is meant
for the output boundary of every format: call :func:`redact` on text, and
:func:`redact_data` on a JSON-like value before it is serialised.

Where the patterns come from
----------------------------
The token shapes follow the rules of two maintained scanners, read at
gitleaks b58d3f1 (``config/gitleaks.toml``) and detect-secrets 5e14193
(``detect_secrets/plugins/``). They are rewritten, not copied: each pattern here
starts only at a token boundary and uses possessive or bounded quantifiers, so a
whole pass is linear in the length of the text (no nested quantifiers, no
ambiguous alternation under a quantifier; tests/test_redact.py times them on
adversarial input). Where a rule is looser than its source (shorter minimum
length, wider alphabet), it is so that a truncated or test-shaped token is still
hidden; where it is stricter, the reason is in the comment.

=======================  ==========================================================
kind                     source rule(s)
=======================  ==========================================================
private-key              gitleaks ``private-key``; detect-secrets ``PrivateKeyDetector``
url-credentials          detect-secrets ``BasicAuthDetector``
authorization            gitleaks ``curl-auth-header``
bearer-token             gitleaks ``curl-auth-header`` (the Bearer branch)
curl-user                gitleaks ``curl-auth-user``
hf-token                 gitleaks ``huggingface-access-token``, ``huggingface-organization-api-token``
anthropic-key            gitleaks ``anthropic-api-key``, ``anthropic-admin-api-key``
openai-key               gitleaks ``openai-api-key``; detect-secrets ``OpenAIDetector``
github-token             gitleaks ``github-pat``, ``github-oauth``, ``github-app-token``,
                         ``github-refresh-token``, ``github-fine-grained-pat``;
                         detect-secrets ``GitHubTokenDetector``
gitlab-token             gitleaks ``gitlab-*``; detect-secrets ``GitLabTokenDetector``
slack-token              gitleaks ``slack-*-token``; detect-secrets ``SlackDetector``
slack-webhook            gitleaks ``slack-webhook-url``; detect-secrets ``SlackDetector``
aws-access-key           gitleaks ``aws-access-token``; detect-secrets ``AWSKeyDetector``
gcp-api-key              gitleaks ``gcp-api-key``
gcp-oauth-token          Google's documented ``ya29.`` access-token prefix
azure-key                detect-secrets ``AzureStorageKeyDetector`` (``AccountKey=``), widened
                         to ``SharedAccessKey=`` and ``SharedAccessSignature``, and the
                         ``sig=`` of a SAS URL
azure-client-secret      gitleaks ``azure-ad-client-secret``
jwt                      gitleaks ``jwt``; detect-secrets ``JwtTokenDetector``
npm-token, pypi-token,   gitleaks ``npm-access-token``, ``pypi-upload-token``,
databricks-token,        ``databricks-api-token``, ``perplexity-api-key``; Replicate's and
perplexity-key,          Groq's documented ``r8_`` / ``gsk_`` prefixes
replicate-token,
groq-key
wandb-key                ``wandb login <key>`` (no scanner has a rule; wandb's own CLI syntax)
password-arg             ``mysql -pPASS``, ``sshpass -p PASS`` and ``--password VALUE``
                         (gitleaks ``curl-auth-user`` style, for database clients)
secret                   ``KEY=value`` / ``KEY: value`` / ``--key value`` where the name says it
                         holds a secret: detect-secrets ``KeywordDetector`` denylist
                         (``api_?key``, ``auth_?key``, ``private_?key``, ``password``,
                         ``passwd``, ``pwd``, ``secret`` ...) plus ``token``; for other names
                         ending in ``key`` the value must look random, as gitleaks'
                         ``generic-api-key`` asks for entropy
email                    RFC 5322's common subset (local@domain.tld)
home path                ``/home/<user>``, ``/Users/<user>``, ``C:\\Users\\<user>`` -> ``~``
=======================  ==========================================================

Redacting serialised JSON is safe too: no rule consumes a quote or splits a
backslash escape, and every boundary also accepts a ``\\n``/``\\t``/``\\r`` escape in
front of a token. But :func:`redact_data` on the value is the better path.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

Replace = Callable[[re.Match[str]], str]


@dataclass(frozen=True)
class _Rule:
    kind: str
    pattern: re.Pattern[str]
    replace: Replace


def _mark(kind: str) -> str:
    return f"[REDACTED:{kind}]"


def _start(chars: str) -> str:
    """A boundary before a token whose characters are ``chars`` (a class body).

    The token may start where the previous character is not one of ``chars`` (and not a
    backslash, which would make the first letter part of an escape), or right after a
    JSON ``\\n``/``\\r``/``\\t`` escape. Starting only at a boundary is what keeps a
    scan linear: no run of token characters is walked twice.
    """
    return rf"(?:(?<=\\[nrt])|(?<![\\{chars}]))"


_ALNUM = "A-Za-z0-9"
_TOKEN = "A-Za-z0-9_-"
#: Values that only say where a secret would go.
_PLACEHOLDER = re.compile(
    r"(?i)(?:none|null|nil|true|false|yes|no|on|off|\d{1,5}|\*++|x{1,64}|\.{3}|<[^<>]*+>|\$\{?[A-Za-z_]\w*+\}?|"
    r"\{\{[^{}]*+\}\}|%\([a-z_]++\)s|changeme|required|optional|string|str|redacted)"
)
#: Names ending in "token" that hold a vocabulary token, not a credential.
_VOCAB_TOKEN = re.compile(
    r"(?:pad|eos|bos|unk|sep|cls|mask|special|start|end|image|video|audio|chat|split|num|max|min|"
    r"decoder_start|additional_special|think|tool|default|next|last|first)_?tokens?$"
)
#: Names that end in ``key`` but hold something ordinary (a column, a dict key, a sort key).
_ORDINARY_KEYS = re.compile(
    r"(?:sort|dataset|text|label|input|output|prompt|response|image|message|column|primary|foreign|cache|"
    r"lookup|group|partition|hash|dict|map|field|metric|monitor|name|id|row|join|index|state)_?key$"
)
#: Names whose value is a secret whatever it looks like (detect-secrets' KeywordDetector denylist, plus token).
_SECRET_NAME = re.compile(
    r"(?:password|passwd|passphrase|pwd|secret|token|credentials?|api_?key|apikey|auth_?key|service_?key|"
    r"account_?key|access_?key|secret_?key|priv(?:ate)?_?key|client_?key|db_?key|database_?key|master_?key|"
    r"signing_?key|encryption_?key|db_?pass|database_?pass|key_?pass|(?:^|_)pass|contrase[nñ]a)$"
)


def _secret_name(name: str) -> bool | None:
    """True when the name says it holds a secret, None when only a random-looking value would be one."""
    low = name.lower().strip("-\"'").replace("-", "_")
    low = low.rsplit(".", 1)[-1]
    if _VOCAB_TOKEN.search(low) or _ORDINARY_KEYS.search(low):
        return False
    if _SECRET_NAME.search(low):
        return True
    if low.endswith(("key", "key_id")):
        return None
    return False


def _looks_random(value: str) -> bool:
    """A value with the length and mix of a generated key (gitleaks asks for entropy >= 3.5 bits)."""
    if len(value) < 16:
        return False
    kinds = sum((any(c.islower() for c in value), any(c.isupper() for c in value), any(c.isdigit() for c in value)))
    if kinds < 2:
        return False
    counts = Counter(value)
    entropy = -sum(n / len(value) * math.log2(n / len(value)) for n in counts.values())
    return entropy >= 3.0


def _is_marker_or_placeholder(value: str) -> bool:
    return value.startswith("[REDACTED") or _PLACEHOLDER.fullmatch(value) is not None


def _whole(kind: str) -> Replace:
    return lambda m: _mark(kind)


def _group(kind: str, group: str = "secret") -> Replace:
    """Replace only the named group; keep the text around it."""

    def replace(m: re.Match[str]) -> str:
        value = m.group(group)
        if value is None or _is_marker_or_placeholder(value):
            return m.group(0)
        start, end = m.start(group) - m.start(), m.end(group) - m.start()
        whole = m.group(0)
        return whole[:start] + _mark(kind) + whole[end:]

    return replace


def _mixed(kind: str) -> Replace:
    """Replace the match only when it has a digit and mixed case (keeps words like ``sk-learn-...``)."""

    def replace(m: re.Match[str]) -> str:
        body = m.group(0)
        if any(c.isdigit() for c in body) and any(c.isupper() for c in body) and any(c.islower() for c in body):
            return _mark(kind)
        return body

    return replace


def _option(m: re.Match[str]) -> str:
    if _secret_name(m.group("name")) is not True or m.group("secret").startswith("-"):
        return m.group(0)
    return _group("secret")(m)


def _bearer(m: re.Match[str]) -> str:
    word = m.group("secret").rstrip("./=")
    if word.isalpha() and (word.islower() or word[1:].islower()):
        return m.group(0)  # "Bearer authentication": a word, not a token
    return _group("bearer-token")(m)


def _email(m: re.Match[str]) -> str:
    text, start = m.string, m.start()
    local = m.group("local")
    if text[max(0, start - 2) : start] == "//" or local in {"git", "hg", "noreply"}:
        return m.group(0)  # a URL's user name or an SSH remote, not a person's address
    if not m.group("tld").isalpha():
        return m.group(0)  # package@1.2.3, not an address
    return _mark("email")


def _curl_user(m: re.Match[str]) -> str:
    if m.group("secret").isdigit() and len(m.group("secret")) <= 6:
        return m.group(0)  # docker -u 1000:1000
    return _group("curl-user")(m)


def _rule(kind: str, pattern: str, replace: Replace | None = None, flags: int = 0) -> _Rule:
    return _Rule(kind, re.compile(pattern, flags), replace or _whole(kind))


_PEM_EDGE = r"[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----"
# The body stops at the next ``-----`` (the END line) and never crosses a quote; a block
# cut short (no END line) is hidden up to that point.
_PEM_BODY = r'(?:[^-"\\]|\\[nrt\\/]|-(?!----))*+'

RULES: tuple[_Rule, ...] = (
    _rule("private-key", rf"-----BEGIN{_PEM_EDGE}{_PEM_BODY}(?:-----END{_PEM_EDGE})?"),
    _rule("private-key", r"PuTTY-User-Key-File-\d: [^\n\"\\]*+(?:\n[^\n\"\\]++)*+"),
    # user:password@ in a URL (detect-secrets BasicAuthDetector); the user name alone is kept
    _rule(
        "url-credentials",
        r"(?<=://)(?P<secret>[^\s:/?#\[\]@!$&'\"()*+,;=\\]*+:[^\s:/?#\[\]@!$&'\"()*+,;=\\]++)(?=@)",
        _group("url-credentials"),
    ),
    # Authorization: <scheme> <credentials> (gitleaks curl-auth-header)
    _rule(
        "authorization",
        r"(?i)\b(?:proxy-)?authorization[\"']?[ \t]{0,5}[:=][ \t]{0,5}[\"']?[ \t]{0,5}"
        r"(?:(?:basic|bearer|token|api-token|digest|negotiate|ntlm)[ \t]{1,5})?(?P<secret>[^\s\"',;\\]{6,}+)",
        _group("authorization"),
    ),
    _rule("bearer-token", r"(?i)\bbearer[ \t]{1,5}(?P<secret>[A-Za-z0-9._~+/-]{8,}+=*+)", _bearer),
    # curl -u user:password (gitleaks curl-auth-user); also docker's -u uid:gid, left alone
    _rule(
        "curl-user",
        r"(?<![\w-])(?:-u|--user)(?:=|[ \t]{1,5})[\"']?[^\s\"':\\]{1,100}:(?P<secret>[^\s\"'\\]++)",
        _curl_user,
    ),
    _rule("hf-token", rf"{_start(_ALNUM)}(?:hf_|api_org_)[A-Za-z0-9]{{20,}}+"),
    _rule("anthropic-key", rf"{_start(_TOKEN)}sk-ant-[A-Za-z0-9_-]{{20,}}+"),
    _rule(
        "openai-key", rf"{_start(_TOKEN)}sk-(?:proj-|svcacct-|admin-|None-)?[A-Za-z0-9_-]{{20,}}+", _mixed("openai-key")
    ),
    _rule("github-token", rf"{_start(_ALNUM)}(?:gh[pousr]_[A-Za-z0-9_]{{30,}}+|github_pat_[A-Za-z0-9_]{{22,}}+)"),
    _rule(
        "gitlab-token",
        rf"{_start(_ALNUM)}(?:gl(?:pat|dt|ft|soat|rt|cbt|imt|ptt|agent|oas|ffct)-[A-Za-z0-9_.-]{{20,}}+"
        r"|GR1348941[A-Za-z0-9_-]{20,}+)",
    ),
    _rule("slack-token", rf"{_start(_ALNUM)}(?:xox[abeoprs]|xapp)-[A-Za-z0-9-]{{8,}}+"),
    _rule(
        "slack-webhook",
        r"(?<=hooks\.slack\.com/)(?:services|workflows|triggers)/[A-Za-z0-9+/_-]{10,}+",
    ),
    _rule(
        "aws-access-key",
        rf"{_start(_ALNUM)}(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AROA)[A-Z0-9]{{16}}(?![A-Z0-9])",
    ),
    _rule("gcp-api-key", rf"{_start(_TOKEN)}AIza[A-Za-z0-9_-]{{30,}}+"),
    _rule("gcp-oauth-token", rf"{_start(_ALNUM)}ya29\.[A-Za-z0-9_-]{{20,}}+"),
    _rule(
        "azure-key",
        r"(?i)\b(?:AccountKey|SharedAccessKey|SharedAccessSignature)[ \t]{0,3}[=: ][ \t]{0,3}"
        r"(?P<secret>[^\s;\"'\\]{8,}+)",
        _group("azure-key"),
    ),
    _rule("azure-key", r"(?<=[?&])sig=(?P<secret>[A-Za-z0-9%+/=]{10,}+)", _group("azure-key")),
    _rule(
        "azure-client-secret",
        r"(?<![A-Za-z0-9_~.\\-])[A-Za-z0-9_~.]{3}\dQ~[A-Za-z0-9_~.-]{31,34}(?![A-Za-z0-9_~.-])",
    ),
    _rule("jwt", rf"{_start(_TOKEN)}eyJ[A-Za-z0-9_-]{{8,}}+\.eyJ[A-Za-z0-9_-]{{8,}}+(?:\.[A-Za-z0-9_-]++)?+"),
    _rule("npm-token", rf"{_start(_ALNUM)}npm_[A-Za-z0-9]{{36,}}+"),
    _rule("pypi-token", rf"{_start(_ALNUM)}pypi-AgE[A-Za-z0-9_-]{{50,}}+"),
    _rule("databricks-token", rf"{_start(_ALNUM)}dapi[a-f0-9]{{32}}(?:-\d)?+"),
    _rule("perplexity-key", rf"{_start(_ALNUM)}pplx-[A-Za-z0-9]{{40,}}+"),
    _rule("replicate-token", rf"{_start(_ALNUM)}r8_[A-Za-z0-9]{{30,}}+"),
    _rule("groq-key", rf"{_start(_ALNUM)}gsk_[A-Za-z0-9]{{40,}}+"),
    # wandb login [--relogin] [--host URL] <key>
    _rule(
        "wandb-key",
        r"(?i)\bwandb[ \t]{1,5}login(?:[ \t]{1,5}--?(?:relogin|cloud|anonymously|verify|host[ =][^\s\"'\\]{1,300}))"
        r"{0,4}[ \t]{1,5}(?P<secret>[A-Za-z0-9_-]{20,}+)",
        _group("wandb-key"),
    ),
    # mysql -pPASS (glued: a space after -p would prompt), sshpass -p PASS
    _rule(
        "password-arg",
        r"(?i)\b(?:mysql|mysqldump|mysqladmin|mysqlimport|mariadb|mariadb-dump)\b[^\n|;&]{0,200}?(?<=\s)(?-i:-p)['\"]?"
        r"(?P<secret>[^\s\"'\\-][^\s\"'\\]*+)",
        _group("password-arg"),
    ),
    _rule(
        "password-arg",
        r"\bsshpass[ \t]{1,5}-p[ \t]{0,5}['\"]?(?P<secret>[^\s\"'\\-][^\s\"'\\]*+)",
        _group("password-arg"),
    ),
    # ~/.netrc (where wandb login stores its key): machine HOST login USER password SECRET
    _rule(
        "secret",
        r"(?i)\bmachine[ \t]{1,5}[^\s\\]{1,200}[ \t]{1,5}login[ \t]{1,5}[^\s\\]{1,200}[ \t]{1,5}password[ \t]{1,5}"
        r"(?P<secret>[^\s\"'\\]++)",
        _group("secret"),
    ),
    _rule(
        "secret",
        r"(?im)(?:^|(?<=\\n))[ \t]{0,20}password[ \t]{1,5}(?P<secret>[^\s\"'\\]++)(?=[ \t]*+(?:$|\\[nr]|\"))",
        _group("secret"),
    ),
    # --password VALUE, --hub_token VALUE (the name decides, as for KEY=value)
    _rule(
        "secret",
        r"(?<![\w-])(?P<name>--?[A-Za-z][A-Za-z0-9_-]{0,60}+)[ \t]{1,5}['\"]?(?P<secret>[^\s\"'\\-][^\s\"'\\,;]*+)",
        _option,
    ),
    _rule(
        "email",
        r"(?:(?<=\\[nrt])|(?<![A-Za-z0-9_.%+\\-]))(?P<local>[A-Za-z0-9_][A-Za-z0-9_.%+-]{0,63}+)@"
        r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,62}\.){1,8}(?P<tld>[A-Za-z0-9-]{2,63}+)",
        _email,
    ),
)

#: Home directories that name the user: the prefix up to and including the user name becomes ``~``.
_HOME = re.compile(
    r"(?:(?<=\\[nrt])|(?<![\w/.~\\-]))(?:/mnt/[a-zA-Z])?/(?:home|Users)/[^/\s\"'`:;,()\[\]{}<>\\]++"
    r"(?=[/\s\"'`:;,()\[\]{}<>\\]|$)"
)
_WIN_HOME = re.compile(
    r"(?i)(?<![\w\\])[A-Z]:(?:\\\\|\\)Users(?:\\\\|\\)[^\\/\s\"'`:;,()\[\]{}<>]++(?=\\|/|\s|[\"']|$)"
)


# KEY=value, KEY: value, "key": "value" (detect-secrets KeywordDetector). Only the name and the
# separator are matched here; the value is read by a second pattern when the name says secret.
# So a name that is not a secret never swallows the text after it (``{"excerpt": "HF_TOKEN=..."}``
# still finds HF_TOKEN), and no stretch of text is read twice.
_NAME_SEP = re.compile(
    rf"(?<!\[REDACTED:){_start('A-Za-z0-9_.-')}"
    r"(?P<name>[A-Za-z0-9_.-]{0,80}(?i:key|key_id|token|secret|pass|passwd|password|pwd|passphrase|credentials?|"
    r"contrase[nñ]a))(?:\\?[\"'])?\]?[ \t]{0,5}(?::=|=>|=|:)[ \t]{0,5}(?P<q>\\?[\"'`])?"
)
_QUOTED_VALUE = re.compile(r"[^\"'`\\\n]++")
_BARE_VALUE = re.compile(r"[^\s\"'`\\,;{}()\[\]<>]++")


def _assignments(text: str) -> str:
    out: list[str] = []
    pos = 0
    while (m := _NAME_SEP.search(text, pos)) is not None:
        verdict = _secret_name(m.group("name"))
        value = None if verdict is False else (_QUOTED_VALUE if m.group("q") else _BARE_VALUE).match(text, m.end())
        if value is None:
            out.append(text[pos : m.end()])
            pos = m.end()
            continue
        secret = value.group()
        hide = not _is_marker_or_placeholder(secret) and len(secret) >= 3 and (verdict or _looks_random(secret))
        out.append(text[pos : m.end()] + (_mark("secret") if hide else secret))
        pos = value.end()
    out.append(text[pos:])
    return "".join(out)


#: Passes of :func:`redact` at most: a secret glued to another ("dapi...abcdefxapp-1-...") is only cut off at a word
#: boundary once the first is replaced, so one more pass finds it; the text settles in two passes in every case seen.
_PASSES = 4


def redact(text: str) -> str:
    """``text`` with every recognised secret replaced by ``[REDACTED:<kind>]`` and home paths by ``~``.

    Repeated until nothing changes, so redacting twice gives what redacting once gave (a replacement can open a
    word boundary before the next secret, which the same pass has already gone past).
    """
    for _ in range(_PASSES):
        done = _one_pass(text)
        if done == text:
            break
        text = done
    return text


def _one_pass(text: str) -> str:
    for rule in RULES:
        text = rule.pattern.sub(rule.replace, text)
    text = _assignments(text)
    text = _HOME.sub("~", text)
    return _WIN_HOME.sub("~", text)


def _keyed(key: object, value: object) -> object:
    """The value stored under ``key`` in a mapping: hidden whole when the key names a secret."""
    if isinstance(key, str) and isinstance(value, str) and not _is_marker_or_placeholder(value):
        verdict = _secret_name(key)
        if verdict or (verdict is None and _looks_random(value)):
            return _mark("secret")
    return redact_data(value)


def redact_data(value: Any) -> Any:
    """A JSON-like value (dicts, lists, strings, numbers) with every string redacted, keys included.

    A string stored under a key that names a secret (``{"hub_token": "..."}``) is hidden
    whole, as ``KEY=value`` is in text.
    """
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, dict):
        return {redact(k) if isinstance(k, str) else k: _keyed(k, v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [redact_data(v) for v in value]
    return value
