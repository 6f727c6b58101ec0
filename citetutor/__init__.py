"""CiteTutor: a local study tutor whose answers are checked before they are shown."""

__version__ = "0.1.0"
