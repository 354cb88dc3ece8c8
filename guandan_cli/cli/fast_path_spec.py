"""What the fast start-up path knows of the Typer app. GENERATED: do not edit.

Rebuild with ``python -m guandan_cli.cli.fast_path_build`` after changing a command's
name or help, the root options, or the parameters of ``plays`` (tests/test_fast_path.py
fails until then).
"""

#: the Typer that rendered the help texts (help is served only with this one installed)
TYPER_VERSION = "0.29.3"

#: the text width of the help texts: Click's default (terminal of 80 columns or more, or none)
HELP_WIDTH = 78

#: the exact stdout of ``guandan --help``
ROOT_HELP = (
    "Usage: guandan [OPTIONS] COMMAND [ARGS]...\n"
    "\n"
    "  Simulate and analyse Guandan (掼蛋) deals played by bots.\n"
    "\n"
    "Options:\n"
    "  --version  Print the version and exit.\n"
    "  --help     Show this message and exit.\n"
    "\n"
    "Commands:\n"
    "  simulate    Play seeded matches between bots; write a resumable,...\n"
    "  analyze     Turn logs into answers: print reports (rates with 95%...\n"
    "  compare     Compare A with B over duplicate pairs: each seed (or deal)...\n"
    "  tournament  Round robin of duplicate pairs: a leaderboard (openskill...\n"
    "  experiment  Play each sampled deal setup twice, by the same bots with...\n"
    "  replay      Replay deal DEAL of match MATCH: hands, tribute and return,...\n"
    "  review      Review deal DEAL of match MATCH: at each decision of the...\n"
    "  watch       Watch one match action by action: the table, each play and...\n"
    "  play        Play one match at --seat against bots: answer with cards...\n"
    "  verify      Replay every deal through the engine; print FILE:LINE:...\n"
    "  plays       List what HAND can play at LEVEL (leading, or beating --top).\n"
    "  rules       Print the rules the engine implements (docs/rules.md), or...\n"
    "  serve       Run a competition server: remote clients (NJUPT platform...\n"
    "  connect     Play one seat on a competition server (NJUPT platform...\n"
    "  bench       Print median µs per legal_plays call, start-up times, and...\n"
)

#: the exact stdout of ``guandan plays --help``
PLAYS_HELP = (
    "Usage: guandan plays [OPTIONS] {HAND}\n"
    "\n"
    "  List what HAND can play at LEVEL (leading, or beating --top).\n"
    "\n"
    "Arguments:\n"
    "  HAND <str>  Cards, e.g. 'S3 H4 D4 C5 S5 H2'.  [required]\n"
    "\n"
    "Options:\n"
    "  -l, --level <str>  The deal's level, 2..A.  [default: 2]\n"
    "  -t, --top <str>    The play to beat, as 'type:key cards'.\n"
    "  --all              Every card multiset, not one per declaration.\n"
    "  --symbols          Show suit symbols.\n"
    "  --help             Show this message and exit.\n"
)

#: the help option of ``guandan`` and of ``guandan plays``
HELP_OPTIONS = ("--help",)

#: the parameter that takes HAND
PLAYS_ARGUMENT = "hand"

#: option -> parameter, for the options that take a value
PLAYS_VALUE_OPTIONS = {"--level": "level", "-l": "level", "--top": "top", "-t": "top"}

#: flag -> (parameter, value it sets)
PLAYS_FLAGS = {"--all": ("every", True), "--symbols": ("symbols", True)}

#: the value of each option not given
PLAYS_DEFAULTS = {"level": "2", "top": None, "every": False, "symbols": False}
