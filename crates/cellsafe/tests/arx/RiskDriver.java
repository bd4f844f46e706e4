/*
 * RiskDriver: prints ARX's re-identification risk estimates for the original table and for
 * transformations of it, one JSON object per line, for cellsafe's parity test
 * (tests/arx_risk.rs). Needs ARX on the class path (e.g. the arx-bench kit's arx.jar).
 *
 *   javac -cp arx.jar -d OUT RiskDriver.java Tables.java
 *   java -cp arx.jar:OUT RiskDriver --data adult.csv --delimiter ';' --qi sex,age,...
 *        --k 5 --suppression 0.05 --threshold 0.2 --population 301620 [--levels 0,1,...]...
 *
 * Hierarchies are DATADIR/<data stem>_hierarchy_<QI>.csv. Without --levels only the
 * original is printed; each --levels adds the transformation with exactly those levels
 * (k-anonymity and the suppression limit decide which classes are suppressed).
 */

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import org.deidentifier.arx.ARXAnonymizer;
import org.deidentifier.arx.ARXConfiguration;
import org.deidentifier.arx.ARXPopulationModel;
import org.deidentifier.arx.ARXResult;
import org.deidentifier.arx.ARXSolverConfiguration;
import org.deidentifier.arx.Data;
import org.deidentifier.arx.DataHandle;
import org.deidentifier.arx.criteria.KAnonymity;
import org.deidentifier.arx.risk.RiskEstimateBuilder;
import org.deidentifier.arx.risk.RiskModelPopulationUniqueness;
import org.deidentifier.arx.risk.RiskModelSampleSummary;

public final class RiskDriver {

    static String data;
    static char delimiter = ';';
    static final List<String> qis = new ArrayList<>();
    static int k = 5;
    static double suppression = 0d;
    static double threshold = 0.2d;
    static long population = 0L;

    public static void main(String[] args) throws Exception {
        // the settings start from their defaults on every call (Batch calls main per case)
        data = null;
        delimiter = ';';
        qis.clear();
        k = 5;
        suppression = 0d;
        threshold = 0.2d;
        population = 0L;
        List<int[]> transformations = new ArrayList<>();
        for (int i = 0; i + 1 < args.length; i += 2) {
            String v = args[i + 1];
            switch (args[i]) {
            case "--data": data = v; break;
            case "--delimiter": delimiter = v.charAt(0); break;
            case "--qi": for (String q : v.split(",")) qis.add(q); break;
            case "--k": k = Integer.parseInt(v); break;
            case "--suppression": suppression = Double.parseDouble(v); break;
            case "--threshold": threshold = Double.parseDouble(v); break;
            case "--population": population = Long.parseLong(v); break;
            case "--histogram": {
                // class sizes only: SIZE:COUNT,... (population estimates of that histogram)
                com.carrotsearch.hppc.IntIntOpenHashMap map = new com.carrotsearch.hppc.IntIntOpenHashMap();
                for (String e : v.split(",")) {
                    String[] sc = e.split(":");
                    map.put(Integer.parseInt(sc[0]), Integer.parseInt(sc[1]));
                }
                histogram(new org.deidentifier.arx.risk.RiskModelHistogram(map));
                return;
            }
            case "--levels": {
                String[] parts = v.split(",");
                int[] levels = new int[parts.length];
                for (int j = 0; j < parts.length; j++) levels[j] = Integer.parseInt(parts[j]);
                transformations.add(levels);
                break;
            }
            default: throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        print(null, load(null).getHandle());
        for (int[] levels : transformations) {
            Data d = load(levels);
            ARXConfiguration config = ARXConfiguration.create();
            config.addPrivacyModel(new KAnonymity(k));
            config.setSuppressionLimit(suppression);
            ARXResult result = new ARXAnonymizer().anonymize(d, config);
            DataHandle output = result.getOutput();
            if (output == null) throw new IllegalStateException("not anonymous: " + str(levels));
            print(levels, output);
        }
    }

    static Data load(int[] levels) throws Exception {
        return Tables.load(data, delimiter, qis, levels);
    }

    static void print(int[] levels, DataHandle handle) {
        ARXPopulationModel model = ARXPopulationModel.create(population);
        RiskEstimateBuilder risk = handle.getRiskEstimator(model, ARXSolverConfiguration.create());
        RiskModelSampleSummary s = risk.getSampleBasedRiskSummary(threshold);
        RiskModelPopulationUniqueness p = risk.getPopulationBasedUniquenessRisk();
        int[] histogram = risk.getEquivalenceClassModel().getHistogram();
        StringBuilder b = new StringBuilder("{");
        b.append("\"k\":").append(k);
        b.append(",\"suppression\":").append(num(suppression));
        b.append(",\"threshold\":").append(num(threshold));
        b.append(",\"levels\":").append(levels == null ? "null" : str(levels));
        b.append(",\"records\":").append(num(risk.getEquivalenceClassModel().getNumRecords()));
        b.append(",\"classes\":").append(num(risk.getEquivalenceClassModel().getNumClasses()));
        b.append(",\"histogram\":").append(str(histogram));
        b.append(",\"prosecutor\":").append(summary(s.getProsecutorRisk()));
        b.append(",\"journalist\":").append(summary(s.getJournalistRisk()));
        b.append(",\"marketer\":").append(num(s.getMarketerRisk().getSuccessRate()));
        b.append(",\"sample_uniques\":").append(num(risk.getSampleBasedUniquenessRisk().getFractionOfUniqueRecords()));
        b.append(",\"population_size\":").append(population);
        b.append(",\"zayatz\":").append(num(p.getFractionOfUniqueTuplesZayatz()));
        b.append(",\"pitman\":").append(num(p.getFractionOfUniqueTuplesPitman()));
        b.append(",\"snb\":").append(num(p.getFractionOfUniqueTuplesSNB()));
        b.append(",\"dankar\":").append(num(p.getFractionOfUniqueTuplesDankar()));
        b.append(",\"dankar_model\":\"").append(p.getPopulationUniquenessModel()).append("\"");
        b.append("}");
        System.out.println(b);
    }

    static void histogram(org.deidentifier.arx.risk.RiskModelHistogram h) {
        RiskModelPopulationUniqueness p = new RiskModelPopulationUniqueness(
            ARXPopulationModel.create(population), h, ARXSolverConfiguration.create());
        StringBuilder b = new StringBuilder("{");
        b.append("\"histogram\":").append(str(h.getHistogram()));
        b.append(",\"population_size\":").append(population);
        b.append(",\"zayatz\":").append(num(p.getFractionOfUniqueTuplesZayatz()));
        b.append(",\"pitman\":").append(num(p.getFractionOfUniqueTuplesPitman()));
        b.append(",\"snb\":").append(num(p.getFractionOfUniqueTuplesSNB()));
        b.append(",\"dankar\":").append(num(p.getFractionOfUniqueTuplesDankar()));
        b.append(",\"dankar_model\":\"").append(p.getPopulationUniquenessModel()).append("\"");
        b.append("}");
        System.out.println(b);
    }

    static String summary(RiskModelSampleSummary.RiskSummary r) {
        return "{\"lowest\":" + num(r.getLowestRisk()) + ",\"highest\":" + num(r.getHighestRisk())
             + ",\"average\":" + num(r.getAverageRisk()) + ",\"records_at_risk\":" + num(r.getRecordsAtRisk()) + "}";
    }

    static String num(double d) {
        if (Double.isNaN(d) || Double.isInfinite(d)) return "null";
        return String.format(Locale.ROOT, "%.17g", d);
    }

    static String str(int[] v) {
        return Tables.array(v);
    }
}
