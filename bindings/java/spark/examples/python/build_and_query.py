"""A first abloom job from PySpark (bindings/java/spark/README.md, "Run it"): build a filter over a
column of a generated DataFrame through the JVM module, save it as one abloom file, register it as
a SQL function and query it.

    spark-submit --master local[2] --jars abloom-0.1.0.jar,abloom-spark-0.1.0.jar \\
        build_and_query.py /tmp/users-py.abloom

Exits with status 1 if a user added is not found, or if the false positives among users never
added are far from the 1% asked for.
"""

import sys

from pyspark.sql import SparkSession

path = sys.argv[1] if len(sys.argv) > 1 else "/tmp/users-py.abloom"
users = 100_000
spark = SparkSession.builder.appName("abloom example (PySpark)").getOrCreate()
AbloomSpark = spark._jvm.io.abloom.spark.AbloomSpark
try:
    # 1. Some data: user ids "user:0" .. "user:99999", in 4 partitions.
    df = spark.range(0, users, 1, 4).selectExpr("concat('user:', id) AS user_id")
    # 2. Build one filter over the column on the executors (the JVM module), and save it.
    f = AbloomSpark.build(df._jdf, "user_id", users, 0.01)
    try:
        AbloomSpark.save(spark._jsparkSession, f, path)
        print(f"built {f.toString()} and saved it to {path}")
    finally:
        f.close()
    # 3. Query it in SQL: every user added is found; about 1% of others are false positives.
    AbloomSpark.register(spark._jsparkSession, "known_user", path)
    df.createOrReplaceTempView("users")
    others = spark.range(users, 2 * users).selectExpr("concat('user:', id) AS user_id")
    others.createOrReplaceTempView("others")
    found = spark.sql("SELECT count(*) FROM users WHERE known_user(user_id)").first()[0]
    false_positives = spark.sql("SELECT count(*) FROM others WHERE known_user(user_id)").first()[0]
    print(
        f"found {found} of {users} users; {false_positives} false positives in {users} others "
        f"({100 * false_positives / users:.2f}%)"
    )
    # 1% of 100000 is 1000; a binomial deviation is about 31, so 800..1200 is over 6 of them.
    if found != users or not 800 <= false_positives <= 1200:
        print("unexpected answers", file=sys.stderr)
        sys.exit(1)
finally:
    spark.stop()
