package dev.sharray.docs;

import dev.sharray.DType;
import dev.sharray.Descriptor;
import dev.sharray.HeapArray;
import dev.sharray.SharedArray;

/** The README's quickstart, run by {@link QuickstartTest}; the README shows the body of {@link #main}. */
public final class QuickstartExample {
    private QuickstartExample() {
    }

    /** @param args unused */
    public static void main(String[] args) {
        // quickstart-begin
        try (SharedArray a = SharedArray.create(DType.FLOAT64, 1000, 1000)) {
            a.setDouble(42.0, 3, 7);
            byte[] wire = a.descriptor().toBytes();          // ~100 bytes, whatever the array's size

            // ...in another JVM: the same memory, no copy
            try (SharedArray b = SharedArray.open(Descriptor.fromBytes(wire))) {
                System.out.println(b.getDouble(3, 7));                       // 42.0
            }
            // views share memory; each view is a reference, released like the array
            try (SharedArray t = a.transpose(); SharedArray column = t.select(0, 7)) {
                System.out.println(column.sum());                            // 42.0
            }
            HeapArray scaled = a.multiply(2.0);             // arithmetic gives plain heap arrays
            System.out.println(scaled.getDouble(3, 7));                      // 84.0
        }
        // quickstart-end
    }
}
