"""Inventory service: stock levels, reservations and restock planning."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from datetime import datetime, timedelta

log = logging.getLogger(__name__)

DEFAULT_LEAD_TIME_DAYS = 7
SAFETY_FACTOR = 1.5


class StockError(Exception):
    """Raised when a reservation cannot be satisfied."""


@dataclass
class Item:
    sku: str
    name: str
    on_hand: int = 0
    reserved: int = 0
    reorder_point: int = 10
    tags: list[str] = field(default_factory=list)

    @property
    def available(self) -> int:
        return self.on_hand - self.reserved

    def describe(self) -> str:
        return f"{self.name} ({self.sku}): {self.available} available"


@dataclass
class Reservation:
    sku: str
    quantity: int
    created: datetime = field(default_factory=datetime.now)
    expires_after: timedelta = timedelta(hours=2)

    def expired(self, now: datetime) -> bool:
        return now - self.created > self.expires_after


class Inventory:
    """Tracks items and the reservations held against them.

    The service is “eventually consistent” with the warehouse: counts are refreshed
    from the nightly export, and reservations expire if they aren’t confirmed.
    """

    def __init__(self) -> None:
        self.items: dict[str, Item] = {}
        self.reservations: list[Reservation] = []

    def add(self, item: Item) -> None:
        if item.sku in self.items:
            raise ValueError(f"duplicate sku {item.sku}")
        self.items[item.sku] = item
        log.info("added %s", item.sku)

    def get(self, sku: str) -> Item | None:
        return self.items.get(sku)

    def reserve(self, sku: str, quantity: int) -> Reservation:
        item = self.items.get(sku)
        if item is None:
            raise StockError(f"unknown sku {sku}")
        if quantity <= 0:
            raise StockError("quantity must be positive")
        if item.available < quantity:
            raise StockError(f"only {item.available} of {sku} available")
        item.reserved += quantity
        reservation = Reservation(sku, quantity)
        self.reservations.append(reservation)
        return reservation

    def release(self, reservation: Reservation) -> None:
        item = self.items.get(reservation.sku)
        if item is None:
            return None
        item.reserved -= reservation.quantity
        self.reservations.remove(reservation)
        return None

    def expire(self, now: datetime | None = None) -> int:
        now = now or datetime.now()
        stale = [r for r in self.reservations if r.expired(now)]
        for reservation in stale:
            self.release(reservation)
        if stale:
            log.info("expired %d reservations", len(stale))
        return len(stale)

    def receive(self, sku: str, quantity: int) -> None:
        item = self.items.get(sku)
        if item is None:
            return None
        item.on_hand += quantity
        log.info("received %d of %s", quantity, sku)
        return None

    def below_reorder_point(self) -> list[Item]:
        return [item for item in self.items.values() if item.available <= item.reorder_point]

    def restock_plan(self, daily_demand: dict[str, float]) -> dict[str, int]:
        """Quantities to order so that stock lasts through the supplier’s lead time."""
        plan: dict[str, int] = {}
        for item in self.below_reorder_point():
            demand = daily_demand.get(item.sku, 0.0)
            if demand <= 0:
                continue
            target = demand * DEFAULT_LEAD_TIME_DAYS * SAFETY_FACTOR
            missing = int(target) - item.available
            if missing > 0:
                plan[item.sku] = missing
        return plan

    def report(self) -> str:
        lines = ["SKU        NAME                 AVAILABLE"]
        for item in sorted(self.items.values(), key=lambda i: i.sku):
            lines.append(f"{item.sku:<10} {item.name:<20} {item.available:>9}")
        return "\n".join(lines)


def load_items(rows: list[dict[str, str]]) -> Inventory:
    inventory = Inventory()
    for row in rows:
        item = Item(
            sku=row["sku"],
            name=row["name"],
            on_hand=int(row.get("on_hand", "0")),
            reorder_point=int(row.get("reorder_point", "10")),
        )
        inventory.add(item)
    return inventory
