package dev.sharray.bench.peers;

import dev.sharray.Descriptor;
import dev.sharray.SharedArray;
import java.io.BufferedInputStream;
import java.io.BufferedReader;
import java.io.EOFException;
import java.io.InputStreamReader;
import java.io.ObjectInputFilter;
import java.io.ObjectInputStream;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;

/**
 * The receiving JVM of the handoff rows. {@code serial}: reads {@code double[]} objects from stdin with
 * {@link ObjectInputStream} (filtered to {@code double[]} only), answering {@code ok <first+last>} for each.
 * {@code descriptor}: reads descriptor bytes as hex lines, opens the array, reads its first and last
 * element, releases it and answers the same way.
 */
public final class HandoffChild {
    private HandoffChild() {
    }

    /**
     * @param args {@code serial} or {@code descriptor}
     * @throws Exception on protocol errors
     */
    public static void main(String[] args) throws Exception {
        if (args[0].equals("serial")) {
            ObjectInputStream in = new ObjectInputStream(new BufferedInputStream(System.in, 1 << 16));
            in.setObjectInputFilter(info -> info.serialClass() == null || info.serialClass() == double[].class
                ? ObjectInputFilter.Status.ALLOWED : ObjectInputFilter.Status.REJECTED);
            while (true) {
                double[] a;
                try {
                    a = (double[]) in.readObject();
                } catch (EOFException e) {
                    return;
                }
                System.out.println("ok " + (a[0] + a[a.length - 1]));
                System.out.flush();
            }
        }
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        HexFormat hex = HexFormat.of();
        String line;
        while ((line = in.readLine()) != null) {
            try (SharedArray a = SharedArray.open(Descriptor.fromBytes(hex.parseHex(line)))) {
                System.out.println("ok " + (a.getDouble(0) + a.getDouble(a.size() - 1)));
                System.out.flush();
            }
        }
    }
}
