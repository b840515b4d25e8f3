from django import forms

from .payments import Customer


class CheckoutForm(forms.Form):
    """The human's contact and shipping details."""

    name = forms.CharField(label="Full name", max_length=200, widget=forms.TextInput(attrs={"autocomplete": "name"}))
    email = forms.EmailField(label="Email", max_length=320, widget=forms.EmailInput(attrs={"autocomplete": "email"}))
    shipping_address = forms.CharField(
        label="Shipping address",
        max_length=1000,
        widget=forms.Textarea(attrs={"rows": 4, "autocomplete": "street-address"}),
        help_text="Street, city, postal code and country.",
    )

    def customer(self):
        data = self.cleaned_data
        return Customer(name=data["name"], email=data["email"], shipping_address=data["shipping_address"])


class ReduceLineForm(forms.Form):
    quantity = forms.IntegerField(min_value=0)
