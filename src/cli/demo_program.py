"""A checkout for a small shop: the program `agentdap demo` debugs.

The customer has a 10% coupon. The basket costs 77.00 before the discount, so the receipt
should say 69.30, but it says something else. Where does the money go?
"""

BASKET = [
    ("notebook", 12.50, 2),
    ("pen", 1.20, 10),
    ("backpack", 40.00, 1),
]


def apply_discount(price, percent):
    return round(price * (1 - percent / 100), 2)


def order_total(items, discount_percent):
    total = 0.0
    for name, price, quantity in items:
        line = apply_discount(price, discount_percent) * quantity
        total += line
    return apply_discount(total, discount_percent)


def main():
    total = order_total(BASKET, 10)
    for name, price, quantity in BASKET:
        print(f"{quantity:>3} x {name:<9} {price:>6.2f}")
    print(f"total with 10% off: {total:.2f}")


if __name__ == "__main__":
    main()
