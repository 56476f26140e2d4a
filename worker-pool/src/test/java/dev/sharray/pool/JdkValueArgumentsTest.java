package dev.sharray.pool;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Everyday JDK values (java.time, UUID, BigDecimal, Optional) go to a worker inside a record and come back as the
 * function's result. Before, the submit was refused: "no reducer for java.util.UUID".
 */
class JdkValueArgumentsTest {
    record Order(UUID id, LocalDate day, Instant placed, BigDecimal amount, Optional<String> coupon, ZoneId zone) { }

    record Receipt(UUID order, ZonedDateTime due, Duration processing, BigInteger cents, Optional<String> coupon) { }

    @Test
    @Timeout(120)
    void jdkValuesCrossAsArgumentsAndResults() {
        final List<Order> orders = List.of(
            new Order(new UUID(1, 2), LocalDate.of(2026, 12, 4), Instant.ofEpochSecond(1_800_000_000L, 5),
                new BigDecimal("12.50"), Optional.of("XMAS"), ZoneId.of("Europe/Paris")),
            new Order(new UUID(3, 4), LocalDate.of(2024, 2, 29), Instant.EPOCH, new BigDecimal("-0.01"), Optional.empty(),
                ZoneId.of("UTC")));
        try (ProcessPool pool = ProcessPool.builder().workers(1).heapSize("128m").build()) {
            final List<Receipt> receipts = pool.map((Order o) -> new Receipt(o.id(),
                o.day().plusDays(30).atStartOfDay(o.zone()), Duration.ofNanos(o.placed().getNano()),
                o.amount().movePointRight(2).toBigIntegerExact(), o.coupon().map(String::toLowerCase)), orders);
            assertEquals(List.of(
                new Receipt(new UUID(1, 2), ZonedDateTime.of(2027, 1, 3, 0, 0, 0, 0, ZoneId.of("Europe/Paris")),
                    Duration.ofNanos(5), BigInteger.valueOf(1250), Optional.of("xmas")),
                new Receipt(new UUID(3, 4), ZonedDateTime.of(2024, 3, 30, 0, 0, 0, 0, ZoneId.of("UTC")), Duration.ZERO,
                    BigInteger.ONE.negate(), Optional.empty())), receipts);
        }
    }
}
