package dev.sharray.pool;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A parent JVM for {@link OversizedResultTest}, started with a small heap: a task returns a result larger than that
 * heap (128 MiB of small byte arrays, all sent inline, so the message is reassembled from many ring fragments), then a
 * small task runs. Prints {@code "big: "} and what the first task gave, then {@code "next: "} and the second's result.
 */
public final class SmallHeapParent {
    private SmallHeapParent() {
    }

    public static void main(String[] args) throws Exception {
        try (ProcessPool pool = ProcessPool.create(1)) {
            final CompletableFuture<List<byte[]>> big = pool.submit((Integer n) -> {
                final List<byte[]> list = new ArrayList<>();
                for (int i = 0; i < n; i++) {
                    list.add(new byte[512 << 10]); // below maxBytes: inline, not shared
                }
                return list;
            }, 256);
            try {
                System.out.println("big: returned " + big.get(30, TimeUnit.SECONDS).size() + " arrays");
            } catch (ExecutionException e) {
                System.out.println("big: " + e.getCause());
            } catch (TimeoutException e) {
                System.out.println("big: no answer in 30 s");
            }
            System.out.println("next: " + pool.submit((Integer x) -> x + 1, 41).get(30, TimeUnit.SECONDS));
        }
    }
}
