"""Django loads an app's models from `<app>.models`; ours are defined in the core layer."""
from agents_protocol.core.models import *  # noqa: F401,F403
from agents_protocol.checkout.models import *  # noqa: F401,F403,E402
from agents_protocol.platforms.models import *  # noqa: F401,F403,E402
