package dev.sharray.bench.peers;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A row's parameters as {@code key=value} pairs, e.g. {@code bytes=1073741824,workers=2}. A key with the prefix
 * {@value #PEER_ONLY} holds for the peer side only, in place of the same key without it: a row that compares
 * sharray with itself (2 workers against 1) runs one class with other parameters as its peer.
 *
 * @param values the pairs, in order
 */
public record Params(Map<String, String> values) {
    /** Prefix of a key that holds for the peer side only. */
    public static final String PEER_ONLY = "peer.";

    /**
     * @param text {@code k=v,k=v} (may be empty)
     * @return the parsed parameters
     */
    public static Params parse(String text) {
        Map<String, String> m = new LinkedHashMap<>();
        for (String kv : text.split(",")) {
            if (!kv.isBlank()) {
                int eq = kv.indexOf('=');
                m.put(kv.substring(0, eq).trim(), kv.substring(eq + 1).trim());
            }
        }
        return new Params(Collections.unmodifiableMap(m));
    }

    /**
     * @param peer whether for the peer side
     * @return the parameters one side sees: without the {@value #PEER_ONLY} keys, which for the peer replace the
     *         keys they name
     */
    public Params forSide(boolean peer) {
        Map<String, String> m = new LinkedHashMap<>();
        values.forEach((k, v) -> {
            if (!k.startsWith(PEER_ONLY)) {
                m.put(k, v);
            }
        });
        if (peer) {
            values.forEach((k, v) -> {
                if (k.startsWith(PEER_ONLY)) {
                    m.put(k.substring(PEER_ONLY.length()), v);
                }
            });
        }
        return new Params(Collections.unmodifiableMap(m));
    }

    /**
     * @param key parameter name
     * @param dflt value when absent
     * @return the value as a long
     */
    public long getLong(String key, long dflt) {
        String v = values.get(key);
        return v == null ? dflt : Long.parseLong(v);
    }

    /**
     * @param key parameter name
     * @param dflt value when absent
     * @return the value
     */
    public String get(String key, String dflt) {
        return values.getOrDefault(key, dflt);
    }

    /** @return the {@code k=v,k=v} form */
    @Override
    public String toString() {
        StringBuilder b = new StringBuilder();
        values.forEach((k, v) -> b.append(b.length() == 0 ? "" : ",").append(k).append('=').append(v));
        return b.toString();
    }
}
