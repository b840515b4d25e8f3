"""The Acme Ceramics demo catalog, as plain data.

Each product is one form (a mug, a bud vase …) finished in one glaze. Forms list the glazes
the studio actually makes them in, so the catalog is a curated selection, not a full grid.
"""
from dataclasses import dataclass
from decimal import Decimal

CATEGORIES = [
    {
        "slug": "mugs",
        "name": "Mugs & Cups",
        "description": "Wheel-thrown mugs, cups and tumblers for the daily coffee and tea ritual.",
        "position": 1,
    },
    {
        "slug": "bowls",
        "name": "Bowls",
        "description": "Breakfast bowls, noodle bowls and little dishes, each one trimmed by hand.",
        "position": 2,
    },
    {
        "slug": "plates",
        "name": "Plates & Platters",
        "description": "Dinnerware with softly lifted rims, made to be used every day.",
        "position": 3,
    },
    {
        "slug": "vases",
        "name": "Vases",
        "description": "From single-stem bud vases to moon jars, all of them watertight.",
        "position": 4,
    },
    {
        "slug": "planters",
        "name": "Planters",
        "description": "Planters with drainage holes and saucers, for herbs, succulents and house plants.",
        "position": 5,
    },
    {
        "slug": "teaware",
        "name": "Teaware",
        "description": "Teapots, tea bowls and teacups for slow mornings.",
        "position": 6,
    },
    {
        "slug": "serveware",
        "name": "Serveware",
        "description": "Pitchers, serving bowls and table pieces for sharing.",
        "position": 7,
    },
]


@dataclass(frozen=True)
class Glaze:
    slug: str
    name: str
    sentence: str
    clay: str
    tags: tuple
    surcharge: Decimal = Decimal("0.00")


@dataclass(frozen=True)
class Form:
    slug: str
    name: str
    category: str
    price: Decimal
    sentence: str
    glazes: tuple
    materials: tuple = ()
    tags: tuple = ()


GLAZES = {
    glaze.slug: glaze
    for glaze in [
        Glaze(
            "speckled-oat",
            "Speckled Oat",
            "Glazed in a warm oatmeal white flecked with iron speckles from the clay beneath.",
            "speckled stoneware",
            ("speckled", "neutral"),
        ),
        Glaze(
            "celadon",
            "Celadon",
            "Glazed in a translucent sea-green celadon that pools darker wherever the surface dips.",
            "porcelain",
            ("green", "translucent"),
            Decimal("4.00"),
        ),
        Glaze(
            "tenmoku",
            "Tenmoku",
            "Glazed in a glossy iron-black tenmoku that breaks to rust brown on the rims.",
            "stoneware",
            ("black", "glossy"),
        ),
        Glaze(
            "shino",
            "Shino",
            "Glazed in a carbon-trap shino with soft orange blushes where the flame touched it.",
            "stoneware",
            ("orange", "carbon trap"),
            Decimal("4.00"),
        ),
        Glaze(
            "ash",
            "Wood Ash",
            "Glazed in a runny natural ash glaze in green-gold, so no two pieces look alike.",
            "stoneware",
            ("green", "one of a kind"),
            Decimal("6.00"),
        ),
        Glaze(
            "chalk",
            "Chalk White",
            "Glazed in a soft satin white that lets the throwing lines show through.",
            "stoneware",
            ("white", "matte"),
        ),
        Glaze(
            "cobalt",
            "Cobalt Drift",
            "Glazed in deep cobalt blue that drifts to pale sky at the edges.",
            "porcelain",
            ("blue", "glossy"),
            Decimal("4.00"),
        ),
        Glaze(
            "moss",
            "Moss Matte",
            "Glazed in a velvety moss-green matte with a dry, stony feel.",
            "stoneware",
            ("green", "matte"),
        ),
        Glaze(
            "terracotta",
            "Raw Terracotta",
            "Left unglazed outside so the red clay can breathe, with a sealed interior.",
            "terracotta",
            ("terracotta", "unglazed"),
            Decimal("-6.00"),
        ),
    ]
}

TABLEWARE = ("dishwasher safe", "microwave safe")

FORMS = [
    Form(
        "mug", "Mug", "mugs", Decimal("32.00"),
        "A 12 oz everyday mug thrown on the wheel, with a thumb rest on a generous pulled handle.",
        ("speckled-oat", "celadon", "tenmoku", "shino", "cobalt"),
        tags=("coffee", *TABLEWARE),
    ),
    Form(
        "latte-mug", "Latte Mug", "mugs", Decimal("36.00"),
        "A wide 16 oz mug with room for foam and a handle that fits three fingers.",
        ("speckled-oat", "chalk", "moss"),
        tags=("coffee", *TABLEWARE),
    ),
    Form(
        "espresso-cup", "Espresso Cup", "mugs", Decimal("22.00"),
        "A small 3 oz cup with thick walls that keep a double shot hot.",
        ("tenmoku", "chalk", "cobalt"),
        tags=("coffee", "espresso", *TABLEWARE),
    ),
    Form(
        "tumbler", "Tumbler", "mugs", Decimal("26.00"),
        "A handleless 10 oz tumbler for water, wine or tea, with a dimple pressed in for the thumb.",
        ("ash", "shino", "moss"),
        tags=("water", *TABLEWARE),
    ),
    Form(
        "cereal-bowl", "Cereal Bowl", "bowls", Decimal("28.00"),
        "A 6-inch breakfast bowl, deep enough for cereal or soup, standing on a trimmed foot ring.",
        ("speckled-oat", "celadon", "chalk", "cobalt"),
        tags=("breakfast", *TABLEWARE),
    ),
    Form(
        "noodle-bowl", "Noodle Bowl", "bowls", Decimal("44.00"),
        "A deep 8-inch bowl with steep sides for ramen, pho and a pair of chopsticks.",
        ("tenmoku", "shino", "ash"),
        tags=("noodles", *TABLEWARE),
    ),
    Form(
        "dip-bowl", "Dip Bowl", "bowls", Decimal("16.00"),
        "A palm-sized bowl for sauces, olives or flaky salt.",
        ("celadon", "tenmoku", "chalk"),
        tags=("small", *TABLEWARE),
    ),
    Form(
        "nesting-bowls", "Nesting Bowl Set", "bowls", Decimal("96.00"),
        "Three bowls in graduated sizes that stack neatly in the cupboard.",
        ("speckled-oat", "moss"),
        tags=("set", "gift", *TABLEWARE),
    ),
    Form(
        "dinner-plate", "Dinner Plate", "plates", Decimal("38.00"),
        "A 10.5-inch dinner plate with a gently lifted rim that keeps sauces in place.",
        ("speckled-oat", "chalk", "tenmoku"),
        tags=("dinnerware", *TABLEWARE),
    ),
    Form(
        "side-plate", "Side Plate", "plates", Decimal("26.00"),
        "An 8-inch plate for breakfast, bread or a slice of cake.",
        ("speckled-oat", "chalk", "celadon"),
        tags=("dinnerware", *TABLEWARE),
    ),
    Form(
        "oval-platter", "Oval Platter", "plates", Decimal("95.00"),
        "A 14-inch oval platter, hand-built from a rolled slab with the edges pinched up.",
        ("ash", "shino"),
        tags=("serving", "hand-built", "hand wash"),
    ),
    Form(
        "bud-vase", "Bud Vase", "vases", Decimal("24.00"),
        "A 5-inch bud vase with a narrow neck that holds a single stem upright.",
        ("celadon", "cobalt", "ash", "moss"),
        tags=("flowers", "small", "gift"),
    ),
    Form(
        "bottle-vase", "Bottle Vase", "vases", Decimal("68.00"),
        "A 9-inch bottle vase with a slender neck, made for a few dried grasses or branches.",
        ("tenmoku", "shino", "chalk"),
        tags=("flowers", "dried flowers"),
    ),
    Form(
        "cylinder-vase", "Tall Cylinder Vase", "vases", Decimal("88.00"),
        "A 12-inch cylinder vase for long-stemmed flowers, watertight inside and out.",
        ("chalk", "cobalt"),
        tags=("flowers", "tall"),
    ),
    Form(
        "moon-jar", "Moon Jar", "vases", Decimal("235.00"),
        "A 14-inch moon jar thrown in two halves and joined at the belly, as Joseon potters made them.",
        ("chalk", "celadon"),
        tags=("statement piece", "one of a kind"),
    ),
    Form(
        "herb-planter", "Herb Planter", "planters", Decimal("34.00"),
        "A 4-inch planter with a drainage hole and a matching saucer, sized for herbs and succulents.",
        ("terracotta", "speckled-oat", "moss"),
        tags=("drainage hole", "saucer", "indoor"),
    ),
    Form(
        "hanging-planter", "Hanging Planter", "planters", Decimal("48.00"),
        "A 6-inch planter with three holes for the braided jute cord that comes with it.",
        ("chalk", "terracotta"),
        materials=("jute cord",),
        tags=("hanging", "drainage hole", "indoor"),
    ),
    Form(
        "floor-planter", "Floor Planter", "planters", Decimal("120.00"),
        "A 12-inch planter for a fiddle-leaf fig or a monstera, with a drainage hole and a cork pad beneath.",
        ("speckled-oat", "terracotta"),
        materials=("cork",),
        tags=("large", "drainage hole", "indoor"),
    ),
    Form(
        "teapot", "Teapot", "teaware", Decimal("145.00"),
        "A 24 oz teapot with a built-in strainer, a lid that stays put when you pour and a drip-free spout.",
        ("tenmoku", "celadon", "ash"),
        tags=("tea", "hand wash"),
    ),
    Form(
        "tea-bowl", "Tea Bowl", "teaware", Decimal("58.00"),
        "A chawan-style tea bowl, wide enough to whisk matcha in.",
        ("shino", "ash", "tenmoku"),
        tags=("tea", "matcha", "hand wash"),
    ),
    Form(
        "yunomi", "Yunomi Teacup", "teaware", Decimal("24.00"),
        "A tall handleless teacup in the Japanese yunomi style, holding about 7 oz.",
        ("celadon", "shino", "speckled-oat"),
        tags=("tea", *TABLEWARE),
    ),
    Form(
        "pitcher", "Pitcher", "serveware", Decimal("78.00"),
        "A 40 oz pitcher with a pinched spout that pours cleanly, for water, milk or flowers.",
        ("speckled-oat", "cobalt"),
        tags=("serving", "dishwasher safe"),
    ),
    Form(
        "butter-dish", "Butter Dish", "serveware", Decimal("46.00"),
        "A covered butter dish that fits a European-style block or two American sticks.",
        ("chalk", "celadon"),
        tags=("kitchen", "dishwasher safe"),
    ),
    Form(
        "oil-bottle", "Olive Oil Bottle", "serveware", Decimal("42.00"),
        "An 8 oz bottle with a cork stopper and a narrow spout for a steady pour.",
        ("tenmoku", "moss"),
        materials=("cork",),
        tags=("kitchen", "hand wash"),
    ),
    Form(
        "salt-cellar", "Salt Cellar", "serveware", Decimal("18.00"),
        "A small lidded salt cellar that sits by the stove, with a notch for the spoon.",
        ("speckled-oat", "cobalt"),
        tags=("kitchen", "small", "gift"),
    ),
    Form(
        "serving-bowl", "Serving Bowl", "serveware", Decimal("110.00"),
        "A wide 12-inch serving bowl for salads, pasta or a pile of fruit.",
        ("ash", "celadon"),
        tags=("serving", "large", "hand wash"),
    ),
]

@dataclass(frozen=True)
class Family:
    """A product sold in variants: the parent is listed, each variant is sold on its own id."""

    slug: str
    name: str
    category: str
    sentence: str
    clay: str
    tags: tuple
    attribute: str  # what the variants differ in
    variants: tuple  # (value, price, stock)


FAMILIES = [
    Family(
        "round-planter", "Round Planter", "planters",
        "A round speckled planter with a drainage hole and a matching saucer, in three sizes.",
        "speckled stoneware", ("indoor", "drainage"), "size",
        (("small", Decimal("18.00"), 24), ("medium", Decimal("28.00"), 15), ("large", Decimal("42.00"), 6)),
    ),
    Family(
        "nesting-bowl", "Nesting Bowl", "bowls",
        "Three bowls that nest into one another, for prep, salads and leftovers.",
        "white stoneware", ("kitchen", "prep", "dishwasher safe"), "size",
        (("small", Decimal("16.00"), 30), ("medium", Decimal("24.00"), 18), ("large", Decimal("34.00"), 9)),
    ),
    Family(
        "stacking-cup", "Stacking Cup", "mugs",
        "A handleless cup that stacks six high, glazed inside and out.",
        "stoneware", ("tea", "coffee", "dishwasher safe"), "glaze",
        (("celadon", Decimal("22.00"), 20), ("tenmoku", Decimal("22.00"), 12), ("shino", Decimal("24.00"), 5)),
    ),
]

# Stock is explicit where it tells a story (sold out, nearly gone); see _stock for the rest.
STOCK_OVERRIDES = {
    "moon-jar-celadon": 0,
    "teapot-ash": 0,
    "tumbler-shino": 0,
    "oval-platter-ash": 0,
    "moon-jar-chalk": 2,
    "teapot-tenmoku": 3,
    "bottle-vase-shino": 4,
    "floor-planter-terracotta": 1,
}


def _stock(public_id, index):
    # A fixed spread between 5 and 60, so pages show varied but reproducible numbers.
    return STOCK_OVERRIDES.get(public_id, 5 + (index * 17) % 56)


def _unique(items):
    return list(dict.fromkeys(items))


def _firing_order():
    """(form, glaze) pairs, batch by batch: every form's first glaze, then every second one …

    The catalog is created in this order, so "newest first" shows a mix of forms rather than
    a page of one kind.
    """
    batches = max(len(form.glazes) for form in FORMS)
    return [
        (form, GLAZES[form.glazes[batch]])
        for batch in range(batches)
        for form in FORMS
        if batch < len(form.glazes)
    ]


def demo_products():
    """Every demo product as a dict of Product fields, `category` given by slug.

    The products sold in variants come first (a variant right after its parent, named by
    `variant_of`), so "newest first" opens on the one-glaze pieces as before."""
    products = []
    for form, glaze in _firing_order():
        public_id = f"{form.slug}-{glaze.slug}"
        products.append(
            {
                "public_id": public_id,
                "slug": public_id,
                "name": f"{glaze.name} {form.name}",
                "description": f"{form.sentence} {glaze.sentence}",
                "price": form.price + glaze.surcharge,
                "currency": "USD",
                "stock": _stock(public_id, len(products)),
                "category": form.category,
                "materials": _unique([glaze.clay, *form.materials]),
                "tags": _unique([*form.tags, *glaze.tags]),
                "is_active": True,
            }
        )
    return [product for family in FAMILIES for product in _family_products(family)] + products


def _family_products(family):
    """The family's parent (listed; its stock is its variants' together) and then its variants."""
    parent = {
        "public_id": family.slug,
        "slug": family.slug,
        "name": family.name,
        "description": family.sentence,
        "price": min(price for _, price, _ in family.variants),
        "currency": "USD",
        "stock": sum(stock for _, _, stock in family.variants),
        "category": family.category,
        "materials": [family.clay],
        "tags": list(family.tags),
        "is_active": True,
    }
    variants = [
        {
            **parent,
            "public_id": f"{family.slug}-{value}",
            "slug": f"{family.slug}-{value}",
            "name": f"{family.name}, {value}",
            "description": f"{family.sentence} This one: {value}.",
            "price": price,
            "stock": stock,
            "variant_of": family.slug,
            "variant_attributes": {family.attribute: value},
        }
        for value, price, stock in family.variants
    ]
    return [parent, *variants]
