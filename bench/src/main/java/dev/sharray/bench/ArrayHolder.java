package dev.sharray.bench;

import dev.sharray.DType;
import dev.sharray.SharedArray;
import java.io.IOException;
import java.util.HexFormat;

/**
 * Helper JVM main: creates a FLOAT64 array of the given byte size, prints {@code DESCRIPTOR <hex>} and holds
 * the array until its stdin closes. Benchmarks open that descriptor as "another JVM" would.
 */
public final class ArrayHolder {
    private ArrayHolder() {
    }

    /**
     * @param args the array size in bytes
     * @throws IOException on stdin errors
     */
    public static void main(String[] args) throws IOException {
        long n = Long.parseLong(args[0]) / 8;
        try (SharedArray a = SharedArray.create(DType.FLOAT64, n)) {
            a.setDouble(1.0, 0);
            a.setDouble(2.0, n - 1);
            System.out.println("DESCRIPTOR " + HexFormat.of().formatHex(a.descriptor().toBytes()));
            System.out.flush();
            while (System.in.read() >= 0) {
                // hold until the parent closes stdin
            }
        }
    }
}
