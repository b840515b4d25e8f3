import re

from django import forms

from .payments import Customer, get_payment_backend

CARD_SEPARATORS = re.compile(r"[ -]")


class UnkeptInput(forms.TextInput):
    """A text input that never writes a submitted value back into the page (a card number)."""

    def format_value(self, value):
        return None


class CheckoutForm(forms.Form):
    """The human's contact and shipping details, and a card number when the payment backend takes one."""

    name = forms.CharField(label="Full name", max_length=200, widget=forms.TextInput(attrs={"autocomplete": "name"}))
    email = forms.EmailField(label="Email", max_length=320, widget=forms.EmailInput(attrs={"autocomplete": "email"}))
    shipping_address = forms.CharField(
        label="Shipping address",
        max_length=1000,
        widget=forms.Textarea(attrs={"rows": 4, "autocomplete": "street-address"}),
        help_text="Street, city, postal code and country.",
    )

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if get_payment_backend().takes_card_number:
            self.fields["card_number"] = forms.CharField(
                label="Card number", required=False, max_length=30,
                widget=UnkeptInput(attrs={"autocomplete": "cc-number", "inputmode": "numeric"}),
                help_text="Optional on this demo shop: see the test card numbers below.",
            )

    def clean_card_number(self):
        digits = CARD_SEPARATORS.sub("", self.cleaned_data["card_number"])
        if digits and not is_card_number(digits):
            raise forms.ValidationError("Enter a valid card number of 12 to 19 digits, e.g. 4242 4242 4242 4242.")
        return digits

    def details(self):
        """What the human typed, without the card number: what their browser may show them again."""
        return {name: self.cleaned_data[name] for name in ("name", "email", "shipping_address")}

    def customer(self):
        data = self.cleaned_data
        return Customer(
            name=data["name"], email=data["email"], shipping_address=data["shipping_address"],
            card_number=data.get("card_number", ""),
        )


class ReduceLineForm(forms.Form):
    quantity = forms.IntegerField(min_value=0)


def is_card_number(digits):
    """12 to 19 ASCII digits passing the Luhn check."""
    if not (digits.isascii() and digits.isdigit() and 12 <= len(digits) <= 19):
        return False
    total = 0
    for position, digit in enumerate(int(d) for d in reversed(digits)):
        doubled = digit * 2 if position % 2 else digit
        total += doubled - 9 if doubled > 9 else doubled
    return total % 10 == 0
