"""Stock levels of a warehouse."""


class Inventory:
    def __init__(self) -> None:
        self.levels: dict[str, int] = {}

    def receive(self, name: str, qty: int) -> None:
        self.levels[name] = self.levels.get(name, 0) + qty

    def ship(self, name: str, qty: int) -> None:
        have = self.levels.get(name, 0)
        if qty > have:
            raise ValueError(f"only {have} of {name} in stock")
        self.levels[name] = have - qty
