"""Known differences between xpshim on the GPU and NumPy, each with its reason.

NAMES: routed names whose differential test is expected to fail as a whole (strict xfail:
a fix makes the suite say so). INPUTS: inputs the suite does not generate, and why; the
README's "Known differences" section says the same for users.
"""

NAMES = {
    # name: reason
}

INPUTS = {
    "integer division by zero": "NumPy returns 0 and warns; CUDA integer division by zero is "
                                "undefined (CuPy returns what the hardware gives). Not generated.",
    "shift by >= the bit width": "undefined in C and CUDA; NumPy defines it as 0. Not generated.",
    "integer power with a negative exponent": "NumPy raises ValueError; CuPy computes. Not generated.",
    "integer overflow in abs/negative/gcd of the most negative value": "C-undefined; not generated.",
}
