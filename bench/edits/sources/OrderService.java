package com.example.orders;

import java.math.BigDecimal;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.logging.Logger;

public class OrderService {
    private static final Logger LOG = Logger.getLogger(OrderService.class.getName());
    private static final BigDecimal FREE_SHIPPING_THRESHOLD = new BigDecimal("50.00");
    private static final BigDecimal SHIPPING_FEE = new BigDecimal("4.95");

    private final Map<String, Order> orders = new HashMap<>();
    private final PaymentGateway payments;
    private final Notifier notifier;

    public OrderService(PaymentGateway payments, Notifier notifier) {
        this.payments = payments;
        this.notifier = notifier;
    }

    public Order create(String customerId, List<LineItem> items) {
        if (customerId == null || customerId.isBlank()) {
            throw new IllegalArgumentException("customerId is required");
        }
        if (items == null || items.isEmpty()) {
            throw new IllegalArgumentException("an order needs at least one item");
        }
        Order order = new Order(newId(), customerId, new ArrayList<>(items), Instant.now());
        orders.put(order.getId(), order);
        LOG.info("created order " + order.getId());
        return order;
    }

    public Optional<Order> find(String orderId) {
        return Optional.ofNullable(orders.get(orderId));
    }

    public BigDecimal subtotal(Order order) {
        BigDecimal total = BigDecimal.ZERO;
        for (LineItem item : order.getItems()) {
            total = total.add(item.getPrice().multiply(BigDecimal.valueOf(item.getQuantity())));
        }
        return total;
    }

    public BigDecimal shipping(Order order) {
        if (subtotal(order).compareTo(FREE_SHIPPING_THRESHOLD) >= 0) {
            return BigDecimal.ZERO;
        }
        return SHIPPING_FEE;
    }

    public BigDecimal total(Order order) {
        return subtotal(order).add(shipping(order));
    }

    public void pay(String orderId, String cardToken) {
        Order order = orders.get(orderId);
        if (order == null) {
            throw new IllegalStateException("unknown order " + orderId);
        }
        if (order.getStatus() != OrderStatus.NEW) {
            throw new IllegalStateException("order " + orderId + " is already " + order.getStatus());
        }
        PaymentResult result = payments.charge(cardToken, total(order));
        if (!result.isSuccess()) {
            order.setStatus(OrderStatus.PAYMENT_FAILED);
            notifier.paymentFailed(order, result.getMessage());
            return;
        }
        order.setStatus(OrderStatus.PAID);
        notifier.orderPaid(order);
    }

    public void cancel(String orderId) {
        Order order = orders.get(orderId);
        if (order == null) {
            throw new IllegalStateException("unknown order " + orderId);
        }
        if (order.getStatus() == OrderStatus.SHIPPED) {
            throw new IllegalStateException("order " + orderId + " has already shipped");
        }
        order.setStatus(OrderStatus.CANCELLED);
        notifier.orderCancelled(order);
    }

    public List<Order> byCustomer(String customerId) {
        List<Order> result = new ArrayList<>();
        for (Order order : orders.values()) {
            if (order.getCustomerId().equals(customerId)) {
                result.add(order);
            }
        }
        result.sort((a, b) -> a.getCreatedAt().compareTo(b.getCreatedAt()));
        return result;
    }

    private String newId() {
        return "ord_" + Long.toHexString(System.nanoTime());
    }
}
