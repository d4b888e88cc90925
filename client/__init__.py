"""mnemo-chat: a terminal client for Mnemo (or any OpenAI-compatible server), standard library only.

Conversations are JSON files in one directory, in the chat page's export format, so they move
between the terminal and the page with export/import. See ``python -m client --help``.
"""
