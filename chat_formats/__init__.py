"""chat_formats: chat builders and mappers, messages and streaming deltas, per-model formats, the CLI.

Import from here; the modules below may move.
"""

__all__: list[str] = []
