"""Draws the example center's patients (fictitious people, seeded): run
`python3 make_center.py > center.csv` to make the same file again."""
import random

rng = random.Random(2026)
zips = ["13053", "13068", "13067", "14850", "14853", "14867"]
diagnoses = ["flu", "asthma", "diabetes", "hypertension", "migraine", "HIV", "cancer"]
weights = [30, 15, 15, 20, 12, 4, 4]
first = ["Ada", "Ben", "Chloe", "Dan", "Eve", "Finn", "Gina", "Hugo", "Iris", "Jon", "Kira", "Leo"]
last = ["Adams", "Brown", "Clark", "Diaz", "Evans", "Fox", "Gray", "Hall", "Ito", "Jones"]

print("id,name,zip,age,sex,diagnosis")
rows = []
for i in range(300):
    age = rng.randrange(20, 80)
    if age == 40:  # one person aged 40 only: the README's differencing pair singles them out
        age = 41
    rows.append([zips[rng.randrange(len(zips))], age, rng.choice("FM"),
                 rng.choices(diagnoses, weights)[0]])
rows[17][1], rows[17][3] = 40, "HIV"
for i, (z, age, sex, d) in enumerate(rows):
    name = f"{first[rng.randrange(len(first))]} {last[rng.randrange(len(last))]}"
    print(f"P{i + 1:04d},{name},{z},{age},{sex},{d}")
