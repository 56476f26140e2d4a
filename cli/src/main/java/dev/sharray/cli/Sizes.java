package dev.sharray.cli;

import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/** Byte sizes: parses {@code 64M}, {@code 1G}, {@code 1.5GiB}, {@code 4096}; formats as KiB/MiB/GiB. */
public final class Sizes {
    private static final Pattern SIZE = Pattern.compile("(\\d+(?:\\.\\d+)?)\\s*([kmgt]?)(i?b)?", Pattern.CASE_INSENSITIVE);

    private Sizes() {
    }

    /**
     * @param text a size such as {@code 64M}, {@code 1GiB} or {@code 123456} (binary units)
     * @return the number of bytes
     * @throws IllegalArgumentException when it is not a size
     */
    public static long parse(String text) {
        Matcher m = SIZE.matcher(text.trim());
        if (!m.matches()) {
            throw new IllegalArgumentException("not a size: '" + text + "' (examples: 4096, 64M, 1G)");
        }
        int shift = switch (m.group(2).toLowerCase(Locale.ROOT)) {
            case "k" -> 10;
            case "m" -> 20;
            case "g" -> 30;
            case "t" -> 40;
            default -> 0;
        };
        double v = Double.parseDouble(m.group(1)) * (1L << shift);
        if (v > Long.MAX_VALUE / 2) {
            throw new IllegalArgumentException("size too large: '" + text + "'");
        }
        return (long) v;
    }

    /**
     * @param bytes a byte count
     * @return a short human-readable form such as {@code 1.00 GiB}
     */
    public static String format(long bytes) {
        if (bytes < 1024) {
            return bytes + " B";
        }
        String[] units = {"KiB", "MiB", "GiB", "TiB"};
        double v = bytes;
        int u = -1;
        while (v >= 1024 && u < units.length - 1) {
            v /= 1024;
            u++;
        }
        return String.format(Locale.ROOT, "%.2f %s", v, units[u]);
    }

    /**
     * @param bytes   bytes processed
     * @param seconds time taken
     * @return a throughput such as {@code 1.23 GB/s} (decimal, as disks and networks are quoted)
     */
    public static String rate(long bytes, double seconds) {
        if (seconds <= 0 || bytes <= 0) {
            return "-";
        }
        double bps = bytes / seconds;
        if (bps >= 1e9) {
            return String.format(Locale.ROOT, "%.2f GB/s", bps / 1e9);
        }
        return String.format(Locale.ROOT, "%.1f MB/s", bps / 1e6);
    }

    /** picocli converter for size options. */
    public static final class Converter implements ITypeConverter<Long> {
        @Override
        public Long convert(String value) {
            try {
                return parse(value);
            } catch (IllegalArgumentException e) {
                throw new TypeConversionException(e.getMessage());
            }
        }
    }
}
