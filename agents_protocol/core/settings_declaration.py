"""Settings declared once: a dict of the project's settings read through typed attributes.

A subclass of DeclaredSettings names the Django setting (a dict) and declares each key as a
Setting: its default, the kind of value it takes and what it means. From that one declaration
come the attribute an app reads (`app_settings.MAX_BODY_BYTES`), the system check that
reports a value of the wrong kind, and the settings reference page (docs/settings.md).

The dict is read on first use and again after a `setting_changed` signal, so
`override_settings` and pytest-django's `settings` fixture work as with Django's own settings.
"""
import inspect
import ipaddress
import os
import threading

from django.conf import settings
from django.core.checks import Error
from django.core.signals import setting_changed
from django.utils.module_loading import import_string

# Each kind of value says what it is (describe(): Markdown for the reference page) and what is
# wrong with a value (problem(): the end of a sentence, or None).


class WholeNumber:
    def __init__(self, minimum):
        self.minimum = minimum

    def describe(self):
        return f"whole number ≥ {self.minimum}"

    def problem(self, value):
        if type(value) is not int or value < self.minimum:  # True is an int, but no number of bytes
            return f"must be a whole number of at least {self.minimum}, not {value!r} (e.g. int(os.environ[...]))"
        return None


class Boolean:
    def describe(self):
        return "`True` or `False`"

    def problem(self, value):
        if type(value) is bool:  # "False" from the environment is a true string
            return None
        return f"must be True or False, not {value!r}"


class Text:
    def __init__(self, optional=False):
        self.optional = optional

    def describe(self):
        return "string, or `None`" if self.optional else "string"

    def problem(self, value):
        if isinstance(value, str) or (self.optional and value is None):
            return None
        return f"must be a string{' or None' if self.optional else ''}, not {value!r}"


class FilePath:
    def describe(self):
        return "file path (`str` or `pathlib.Path`), or `None`"

    def problem(self, value):
        if value is None or isinstance(value, (str, os.PathLike)):
            return None
        return f"must be a file path or None, not {value!r}"


class Choice:
    def __init__(self, *choices):
        self.choices = choices

    def describe(self):
        return " or ".join(f'`"{choice}"`' for choice in self.choices)

    def problem(self, value):
        if value in self.choices:
            return None
        return f"must be one of {', '.join(self.choices)}, not {value!r}"


class TextList:
    def describe(self):
        return "list of strings"

    def problem(self, value):
        if isinstance(value, (list, tuple)) and all(isinstance(item, str) for item in value):
            return None
        return f"must be a list of strings, not {value!r}"


class Networks:
    def describe(self):
        return "list of CIDR strings"

    def problem(self, value):
        if not (isinstance(value, (list, tuple)) and all(isinstance(item, str) for item in value)):
            return f"must be a list of CIDR strings, not {value!r}"
        for item in value:
            try:
                ipaddress.ip_network(item, strict=False)
            except ValueError:
                return f"holds {item!r}, which is not a network such as 127.0.0.0/8"
        return None


class DottedPath:
    """The dotted path of something importable; `subclass_of` (a dotted path itself, imported when
    checked) and `methods` say what it must be."""

    def __init__(self, optional=False, subclass_of=None, methods=()):
        self.optional, self.subclass_of, self.methods = optional, subclass_of, methods

    def describe(self):
        what = "dotted path"
        if self.subclass_of:
            what += f" of a subclass of `{self.subclass_of.rsplit('.', 1)[1]}`"
        if self.methods:
            what += f" of a class with {' and '.join(f'`{name}()`' for name in self.methods)}"
        return what + (", or `None`" if self.optional else "")

    def problem(self, value):
        if self.optional and value is None:
            return None
        if not isinstance(value, str):
            return f"must be a dotted path{' or None' if self.optional else ''}, not {value!r}"
        return import_problem(value) or self._kind_problem(value)

    def _kind_problem(self, path):
        imported = import_string(path)
        if self.subclass_of:
            base = import_string(self.subclass_of)
            if not (isinstance(imported, type) and issubclass(imported, base)):
                return f"names {path!r}, which is not a subclass of {base.__name__}"
        if not all(callable(getattr(imported, name, None)) for name in self.methods):
            return f"names {path!r}, which has no {' and '.join(f'{name}()' for name in self.methods)} methods"
        return None


class DottedPaths:
    def describe(self):
        return "list of dotted paths"

    def problem(self, value):
        if not (isinstance(value, (list, tuple)) and all(isinstance(path, str) for path in value)):
            return f"must be a list of dotted paths, not {value!r}"
        return next(filter(None, map(import_problem, value)), None)


def import_problem(path):
    try:
        import_string(path)
    except ImportError as error:
        return f"names {path!r}, which cannot be imported: {error}"
    return None


class TextFields:
    """A dict of strings whose keys are among those of a tuple (a dotted path, imported when used)."""

    def __init__(self, keys_from):
        self.keys_from = keys_from

    def describe(self):
        return f"dict of strings with keys among {', '.join(f'`{key}`' for key in import_string(self.keys_from))}"

    def problem(self, value):
        keys = import_string(self.keys_from)
        if isinstance(value, dict) and all(key in keys and isinstance(item, str) for key, item in value.items()):
            return None
        return f"must be a dict of strings with keys among {', '.join(keys)}, not {value!r}"


class WholeNumbers:
    """None (off), or a dict of some of `defaults`' keys, each a whole number of at least `minimum`."""

    def __init__(self, defaults, minimum):
        self.defaults, self.minimum = defaults, minimum

    def describe(self):
        keys = ", ".join(f"`{key}` ({default})" for key, default in self.defaults.items())
        return f"`None`, or a dict of {keys}, each a whole number ≥ {self.minimum}"

    def problem(self, value):
        if value is None or (isinstance(value, dict) and all(
                key in self.defaults and type(item) is int and item >= self.minimum for key, item in value.items())):
            return None
        return (f"must be None or a dict of {' and '.join(self.defaults)}, each a whole number of at least "
                f"{self.minimum}, not {value!r}")


class Setting:
    """One key of the dict: read as an attribute of the DeclaredSettings instance, its default when unset."""

    def __init__(self, default, kind, meaning, check=None):
        self.default, self.kind, self.meaning = default, kind, meaning
        self.check = check  # the id of the check reporting a wrong value, if not the class's `values_check`

    def __set_name__(self, owner, name):
        self.name = name

    def __get__(self, instance, owner=None):
        if instance is None:
            return self
        return instance.configured().get(self.name, self.default)


class DeclaredSettings:
    """A subclass sets `setting` (the name of the Django setting), the ids of the checks that report
    a setting that is not a dict or has an unknown key (`keys_check`) and a value of the wrong kind
    (`values_check`, unless its Setting names another), and declares its keys as Settings."""

    setting = keys_check = values_check = None

    def __init__(self):
        self._configured = None  # the dict as last read (a call reads several values); None: read it again
        self._reading = threading.Lock()  # a change signalled while a thread reads must not leave the old dict
        setting_changed.connect(self._forget)

    @classmethod
    def declared(cls):
        return [value for value in vars(cls).values() if isinstance(value, Setting)]

    @classmethod
    def defaults(cls):
        return {setting.name: setting.default for setting in cls.declared()}

    def configured(self):
        configured = self._configured
        if configured is None:
            with self._reading:
                if self._configured is None:
                    value = getattr(settings, self.setting, {})
                    # Not a dict: a check says so; the defaults meanwhile.
                    self._configured = value if isinstance(value, dict) else {}
                configured = self._configured
        return configured

    def _forget(self, setting, **kwargs):
        if setting == self.setting:
            with self._reading:
                self._configured = None

    def key_errors(self):
        """The system check's Error for a setting that is not a dict, or for each unknown key (a typo)."""
        configured = getattr(settings, self.setting, {})
        if not isinstance(configured, dict):
            return [Error(f"{self.setting} must be a dict, not {type(configured).__name__}.", id=self.keys_check)]
        known = self.defaults()
        return [
            Error(f"{self.setting} has an unknown key {key!r}.", hint=f"Known keys: {', '.join(known)}.",
                  id=self.keys_check)
            for key in configured
            if key not in known
        ]

    def wrong_value_errors(self):
        """The system check's Error for each key whose value is not of its declared kind."""
        errors = []
        for declared in self.declared():
            problem = declared.kind.problem(getattr(self, declared.name))
            if problem:
                errors.append(Error(f"{self.setting}[{declared.name!r}] {problem}.",
                                    hint=f"{declared.name}: {declared.meaning}",
                                    id=declared.check or self.values_check))
        return errors

    @classmethod
    def reference_markdown(cls):
        """The settings reference's section of this dict: what it is for, each key, and its checks."""
        rows = [f"| `{s.name}` | `{_python(s.default)}` | {s.kind.describe()} | {s.meaning} |" for s in cls.declared()]
        return "\n\n".join([
            f"## {cls.setting}",
            inspect.cleandoc(cls.__doc__),
            "\n".join(["| key | default | type | meaning |", "|---|---|---|---|", *rows]),
            cls._checks_markdown(),
        ]) + "\n"

    @classmethod
    def _checks_markdown(cls):
        names = {}
        for declared in cls.declared():
            names.setdefault(declared.check or cls.values_check, []).append(f"`{declared.name}`")
        others = "the others" if len(names) > 1 else "every key"
        values = [f"`{check}` ({', '.join(keys) if check != cls.values_check else others})"
                  for check, keys in sorted(names.items())]
        return (f"`manage.py check` reports `{cls.setting}` when it is not a dict or has an unknown key "
                f"(`{cls.keys_check}`), and a value not of its type: {', '.join(values)}.")


def _python(value):
    return repr(value).replace("'", '"')
