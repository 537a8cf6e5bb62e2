"""``get_format("auto", chat_template=…)``: the detected family's builder, or a format derived from the template."""

from __future__ import annotations

from ..formats import BUILDERS, Builder, canonical_name
from ._derive import derive_format
from ._detect import detect_format
from ._render import TemplateError

__all__ = ["DERIVED_NAME", "resolve_template"]

#: The name a format derived from a template (no known family) carries.
DERIVED_NAME = "derived"


def resolve_template(chat_template: str | None) -> tuple[str, Builder]:
    """The format name and builder for ``chat_template``: the family :func:`detect_format` names, else the
    layout :func:`derive_format` builds (named :data:`DERIVED_NAME`; what it could not derive is left out).
    Raises :class:`TemplateError` for a missing, empty or unrenderable template. Cost: see those functions."""
    if chat_template is None:
        raise TemplateError('format "auto" needs chat_template (the model\'s Jinja chat template)')
    try:
        name = detect_format(chat_template)
    except TemplateError as exc:
        if "matches none of" not in str(exc):
            raise
        report = derive_format(chat_template)
        assert report.layout is not None  # derive_format always builds a layout (possibly content-only)
        return DERIVED_NAME, report.layout
    canonical = canonical_name(name)
    assert canonical is not None  # every signature names a registered format (tested)
    return canonical, BUILDERS[canonical]
