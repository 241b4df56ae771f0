# Demo conversations, part A: everyday instructions, brainstorming, chat and coding.
# Original text written for maskscope; make_demo_dataset.py turns these into resources/data/demo.jsonl.
# Each entry: (category, [(role, content), ...]).

CONVERSATIONS_A = [
    ("Generation", [
        ("user", "Write a two-line poem about a kettle that refuses to boil."),
        ("assistant", "The kettle hums but will not sing,\nit waits for me to leave the room."),
    ]),
    ("Open QA", [
        ("user", "How long should I let a cup of green tea steep?"),
        ("assistant", "About two minutes in water just below boiling, around 80 °C."),
    ]),
    ("Brainstorm", [
        ("system", "You are a cheerful assistant who keeps answers short and practical."),
        ("user", "Give me five ideas for a rainy Sunday at home with two kids."),
        ("assistant", "1. Build a blanket fort and read stories inside it with a torch.\n"
                      "2. Bake flat bread and let each child invent a topping.\n"
                      "3. Hold an indoor treasure hunt with clues written as riddles.\n"
                      "4. Make a cardboard marble run along the hallway wall.\n"
                      "5. Record a pretend radio show, with weather, news and songs."),
    ]),
    ("Chat", [
        ("user", "I just planted tomatoes on my balcony. Any tips?"),
        ("assistant", "Nice! Give them the sunniest corner you have, at least six hours of direct light. "
                      "Water deeply at the base in the morning rather than a little every evening."),
        ("user", "How do I know if I am overwatering?"),
        ("assistant", "Push a finger into the soil up to the second knuckle. If it still feels damp, wait. "
                      "Yellow lower leaves and soil that smells sour are the usual warning signs."),
        ("user", "Thanks, that helps."),
        ("assistant", "Happy growing! 🍅"),
    ]),
    ("Coding", [
        ("user", "In Python, how do I reverse a list without changing the original?"),
        ("assistant", "Use slicing, which returns a new list:\n\n```python\nnumbers = [1, 2, 3, 4]\n"
                      "backwards = numbers[::-1]\nprint(backwards)  # [4, 3, 2, 1]\n```\n\n"
                      "`reversed(numbers)` also works if you only need to iterate."),
    ]),
    ("Rewrite", [
        ("system", "Rewrite text in a friendly, plain tone. Keep the meaning."),
        ("user", "Rewrite: \"Per our policy, refunds are processed within 10 business days of receipt of the returned item.\""),
        ("assistant", "Once we get your return, you will have your money back within ten working days."),
    ]),
    ("Open QA", [
        ("user", "Why does bread go stale?"),
        ("assistant", "Staling is mostly not about drying out. As bread cools, the starch molecules that "
                      "swelled with water in the oven slowly line up again and form stiff, crystal-like "
                      "regions. That process, called retrogradation, squeezes water out of the starch and "
                      "makes the crumb firm and crumbly.\n\nIt happens fastest at fridge temperatures, which "
                      "is why bread kept in the fridge stales sooner than bread on the counter. Warming "
                      "stale bread in the oven partly reverses it, which is why a tired baguette comes back "
                      "to life for a few minutes after toasting."),
    ]),
    ("Brainstorm", [
        ("user", "Suggest three names for a small bakery that only opens at night."),
        ("assistant", "- The Midnight Crumb\n- Moonrise Loaves\n- Owl & Oven"),
    ]),
    ("Coding", [
        ("user", "What does `git stash` do?"),
        ("assistant", "It puts your uncommitted changes aside and restores a clean working tree. "
                      "`git stash pop` brings them back."),
    ]),
    ("Generation", [
        ("system", "You write short, warm messages for greeting cards."),
        ("user", "A card for my neighbour Françoise, who is moving to Montréal."),
        ("assistant", "Chère Françoise,\n\nThe street will be quieter without your laugh and your garden "
                      "full of sunflowers. Montréal is lucky to get you. Send us a photo of your first "
                      "snowy morning there — and bonne chance!\n\nWith love from number 12"),
    ]),
    ("Chat", [
        ("user", "Can you help me plan a short morning routine?"),
        ("assistant", "Sure. How much time do you have before you need to leave?"),
        ("user", "About forty minutes, and I am not a morning person."),
        ("assistant", "Then keep it simple and the same every day:\n\n"
                      "- 5 min: water, open the curtains, no phone.\n"
                      "- 10 min: shower.\n"
                      "- 15 min: dress and eat something you prepared the night before.\n"
                      "- 10 min: pack your bag and leave with a little slack.\n\n"
                      "The trick is to do the deciding the evening before."),
    ]),
    ("Coding", [
        ("user", "Write a C++ function that returns true when a string is a palindrome."),
        ("assistant", "```cpp\n#include <string_view>\n\nbool isPalindrome(std::string_view s) {\n"
                      "    std::size_t i = 0, j = s.size();\n    while (i + 1 < j) {\n"
                      "        if (s[i] != s[j - 1]) return false;\n        ++i;\n        --j;\n    }\n"
                      "    return true;\n}\n```\n\nIt compares bytes, so it treats a UTF-8 string as a "
                      "sequence of bytes, which is fine for ASCII words."),
    ]),
    ("Open QA", [
        ("user", "What is the difference between weather and climate?"),
        ("assistant", "Weather is what the sky does today; climate is what it tends to do over thirty years or more."),
    ]),
    ("Brainstorm", [
        ("user", "I need a theme for our office party in December. Something other than Christmas."),
        ("assistant", "A few ideas that work for everyone:\n\n"
                      "1. **Winter market** — small stalls with soup, cocoa and a swap table.\n"
                      "2. **Retro arcade** — rent two old game cabinets and run a high-score board.\n"
                      "3. **Around the world** — each team brings a dish from a country someone "
                      "in the team has lived in.\n4. **Quiz night** — questions written by the teams "
                      "about each other's work."),
        ("user", "I like the quiz. How many rounds?"),
        ("assistant", "Four rounds of eight questions fits in about an hour, with a break after round two."),
    ]),
    ("Generation", [
        ("user", "Write a haiku about debugging at 2 a.m."),
        ("assistant", "The bug hides in plain sight,\nprint statements like lanterns—\nfound: an off-by-one."),
    ]),
    ("Coding", [
        ("system", "You are a concise programming tutor. Answer with code first, then one sentence."),
        ("user", "How do I read a file line by line in Python?"),
        ("assistant", "```python\nwith open(\"notes.txt\", encoding=\"utf-8\") as f:\n    for line in f:\n"
                      "        print(line.rstrip(\"\\n\"))\n```\n\nThe `with` block closes the file even if an error occurs."),
        ("user", "And count the lines?"),
        ("assistant", "```python\nwith open(\"notes.txt\", encoding=\"utf-8\") as f:\n"
                      "    count = sum(1 for _ in f)\n```\n\nThis streams the file, so it works on files larger than memory."),
    ]),
    ("Classify", [
        ("user", "Is this review positive, negative or mixed? \"The soup was lovely but we waited an hour for it.\""),
        ("assistant", "Mixed."),
    ]),
    ("Chat", [
        ("user", "こんにちは！日本語で少し話せますか？"),
        ("assistant", "はい、もちろんです。今日はどんなことを話しましょうか？"),
        ("user", "おすすめの朝ごはんを教えてください。"),
        ("assistant", "ご飯とみそ汁、焼き魚はいかがですか。時間がないときは、おにぎりとお茶でも十分です。🍙"),
    ]),
    ("Open QA", [
        ("user", "How many legs does a spider have?"),
        ("assistant", "Eight."),
    ]),
    ("Rewrite", [
        ("user", "Make this sentence shorter: \"At this point in time we are not in a position to be able to offer you a discount.\""),
        ("assistant", "We can't offer you a discount right now."),
    ]),
    ("Brainstorm", [
        ("system", "You are helping a teacher plan lessons."),
        ("user", "Give me four hands-on activities to teach fractions to nine-year-olds."),
        ("assistant", "- Fold paper strips into halves, quarters and eighths, then line them up to compare.\n"
                      "- Share a (paper) pizza between different numbers of friends.\n"
                      "- Measure ingredients for a simple recipe with ½ and ¼ cups.\n"
                      "- Play fraction dominoes where a picture matches a written fraction."),
    ]),
    ("Coding", [
        ("user", "What is a segmentation fault?"),
        ("assistant", "A segmentation fault happens when a program touches memory it is not allowed to "
                      "use: reading through a null or dangling pointer, writing past the end of an "
                      "array, or using an object after it was freed. The operating system stops the "
                      "program instead of letting it corrupt memory.\n\nTo find one, build with debug "
                      "information (`-g`) and run under a debugger, or build with AddressSanitizer "
                      "(`-fsanitize=address`), which usually points straight at the bad access."),
    ]),
    ("Generation", [
        ("user", "Write a one-sentence product description for a reusable water bottle."),
        ("assistant", "A steel bottle that keeps your water cold for a full day and fits in any cup holder."),
    ]),
    ("Chat", [
        ("user", "¿Puedes recomendarme un libro corto para practicar español?"),
        ("assistant", "Prueba «El principito». Las frases son sencillas y la historia es bonita para "
                      "leer en voz alta."),
        ("user", "¿Y algo más moderno?"),
        ("assistant", "«Manolito Gafotas» de Elvira Lindo: es divertido, corto y lleno de español cotidiano."),
    ]),
    ("Coding", [
        ("user", "Write a shell one-liner that counts the lines in all .txt files in a folder."),
        ("assistant", "```sh\ncat *.txt | wc -l\n```"),
    ]),
    ("Open QA", [
        ("user", "Why is the sky blue?"),
        ("assistant", "Sunlight contains every colour. Air molecules scatter short, blue wavelengths much "
                      "more than long, red ones, so blue light reaches your eyes from every part of the "
                      "sky. At sunset the light crosses much more air, most of the blue is scattered "
                      "away before it reaches you, and the reds and oranges are what is left."),
    ]),
    ("Chat", [
        ("system", "You are a friendly cooking assistant. Keep each answer to a few sentences."),
        ("user", "I have eggs, spinach and some feta. What can I make for lunch?"),
        ("assistant", "A spinach and feta omelette is quick: wilt the spinach in a pan, pour in two beaten "
                      "eggs, crumble the feta on top and fold it once the eggs are just set."),
        ("user", "Should I add salt? Feta is already salty."),
        ("assistant", "Good instinct. Skip the salt in the eggs and add a pinch of black pepper instead."),
        ("user", "I also have half a lemon."),
        ("assistant", "A few drops of lemon juice over the spinach at the end will brighten the whole dish."),
        ("user", "Perfect. How long will it take?"),
        ("assistant", "About ten minutes from cracking the eggs to sitting down. Bon appétit!"),
    ]),
]
