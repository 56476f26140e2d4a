package dev.sharray.reducers;

import org.agrona.ExpandableArrayBuffer;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Date;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.function.Consumer;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code Locale} (script, variant and extensions kept) and {@code java.util.Date} cross as themselves. Before, each
 * was refused on write: "no reducer for java.util.Locale".
 */
class LocaleAndDateTest {
    private static final Reducers R = Reducers.defaults();

    /** What a report task would take: whose format, as of when. */
    record Report(Locale locale, Date asOf, List<Locale> also) { }

    @SuppressWarnings("deprecation") // the legacy constructor makes locales no language tag can spell
    private static List<Locale> locales() {
        return List.of(Locale.forLanguageTag("de-DE-u-co-phonebk"), new Locale("ja", "JP", "JP"),
            new Locale("th", "TH", "TH"), Locale.ROOT, Locale.US, Locale.forLanguageTag("zh-Hant-TW"),
            Locale.forLanguageTag("sr-Latn-RS"), new Locale("en", "US", "POSIX"), new Locale("en", "US", "WIN"),
            Locale.forLanguageTag("en-x-foo"), Locale.forLanguageTag("und-u-nu-thai"), new Locale("", "", "v"),
            Locale.forLanguageTag("de-DE-1901-1996"), Locale.forLanguageTag("en-a-aaa-b-bbb-u-ca-buddhist"),
            new Locale("ja", "JP", "JP_x"), new Locale("iw"), new Locale("", "US"),
            // the legacy constructor's locales that BCP 47 cannot spell: forLanguageTag(toLanguageTag()) is another one
            new Locale("no", "NO", "NY"), new Locale("en", "USA"), new Locale("x y"), new Locale("en", "US", "a_b-c"));
    }

    @Test
    void eachLocaleCrossesEqualScriptVariantAndExtensionsIncluded() {
        final List<Locale> all = new ArrayList<>(locales());
        all.addAll(Arrays.asList(Locale.getAvailableLocales()));
        for (Locale l : all) {
            final Locale back = (Locale) R.fromBytes(R.toBytes(l));
            assertEquals(l, back, l.toString());
            assertEquals(l.getVariant(), back.getVariant(), l.toString());
            assertEquals(l.getExtensionKeys(), back.getExtensionKeys(), l.toString());
        }
        // those with a language tag cross as it: the second byte is the form
        assertEquals(0, R.toBytes(Locale.forLanguageTag("de-DE-u-co-phonebk"))[1]);
        assertEquals(0, R.toBytes(locales().get(1))[1]); // ja_JP_JP, as ja-JP-u-ca-japanese-x-lvariant-JP
        assertEquals(1, R.toBytes(locales().get(17))[1]); // no_NO_NY: its tag nn-NO is another locale
    }

    @Test
    void eachDateCrossesAsItsMillis() {
        for (Date d : new Date[] {new Date(0), new Date(Long.MIN_VALUE), new Date(Long.MAX_VALUE), new Date(-1),
            new Date(1_764_806_400_123L)}) {
            final Object back = R.fromBytes(R.toBytes(d));
            assertEquals(d, back);
            assertSame(Date.class, back.getClass());
        }
    }

    @Test
    void theyCrossInsideRecordsCollectionsAndArrays() {
        final Report r = new Report(Locale.forLanguageTag("de-DE-u-co-phonebk"), new Date(123_456_789L), locales());
        assertEquals(r, R.fromBytes(R.toBytes(r)));
        final Map<Locale, Date> map = Map.of(Locale.FRANCE, new Date(1), Locale.ROOT, new Date(2));
        assertEquals(map, R.fromBytes(R.toBytes(map)));
        final Locale[] locales = locales().toArray(Locale[]::new);
        assertArrayEquals(locales, (Locale[]) R.fromBytes(R.toBytes(locales)));
        final Date[] dates = {new Date(5), null};
        assertArrayEquals(dates, (Date[]) R.fromBytes(R.toBytes(dates)));
    }

    private static byte[] message(Consumer<ValueWriter> body) {
        final ExpandableArrayBuffer buffer = new ExpandableArrayBuffer(64);
        final ValueWriter w = new ValueWriter(Reducers.defaults()).wrap(buffer, 0, null);
        body.accept(w);
        return Arrays.copyOf(buffer.byteArray(), w.position());
    }

    private static byte[] tag(String languageTag) {
        return message(w -> {
            w.writeByte(Tags.LOCALE);
            w.writeByte((byte) 0);
            w.writeString(languageTag);
        });
    }

    private static String refusal(byte[] message) {
        return assertThrows(MalformedDataException.class, () -> R.fromBytes(message)).getMessage();
    }

    @Test
    void anInvalidLanguageTagOrFormIsMalformedData() {
        // forLanguageTag would quietly drop what it cannot parse ("en-US-!!" is en_US): only canonical tags are taken
        for (String t : new String[] {"en-US-!!", "EN", "en_US", "i-klingon", "", "-", "x", "en--US",
            "a".repeat(100_000), "de-DE-u-co-phonebk-u-ca-x", "\0"}) {
            final String m = refusal(tag(t));
            assertTrue(m.startsWith("invalid Locale at offset 0: a language tag of " + t.length() + " characters"), m);
        }
        assertEquals("invalid Locale at offset 0: a null language tag", refusal(tag(null)));
        assertEquals("invalid Locale at offset 0: form 2 is neither 0 (a language tag) nor 1 (language, country,"
            + " variant)", refusal(message(w -> {
                w.writeByte(Tags.LOCALE);
                w.writeByte((byte) 2);
                w.writeString("en");
            })));
        assertEquals("invalid Locale at offset 0: a null variant", refusal(message(w -> {
            w.writeByte(Tags.LOCALE);
            w.writeByte((byte) 1);
            w.writeString("en");
            w.writeString("US");
            w.writeString(null);
        })));
        assertTrue(refusal(message(w -> {
            w.writeByte(Tags.LOCALE);
            w.writeByte((byte) 0);
            w.writeInt(Integer.MAX_VALUE);
        })).startsWith("truncated input"));
    }

    @Test
    void everyTruncationAndRandomDamageGivesMalformedDataOnly() {
        final List<Object> values = new ArrayList<>(locales());
        values.add(new Date(42));
        for (Object v : values) {
            final byte[] good = R.toBytes(v);
            for (int n = 0; n < good.length; n++) {
                final byte[] cut = Arrays.copyOf(good, n);
                assertThrows(MalformedDataException.class, () -> R.fromBytes(cut), n + " bytes of " + v);
            }
        }
        final byte[] good = R.toBytes(values);
        final Random random = new Random(11);
        for (int i = 0; i < 5000; i++) {
            final byte[] bad = good.clone();
            for (int f = 1 + random.nextInt(3); f > 0; f--) {
                bad[random.nextInt(bad.length)] ^= (byte) (1 + random.nextInt(255));
            }
            try {
                R.fromBytes(bad);
            } catch (MalformedDataException expected) {
                // the only acceptable failure: never IllformedLocaleException or another parser's
            }
        }
    }
}
