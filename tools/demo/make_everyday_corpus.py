#!/usr/bin/python3
"""Writes tools/demo/corpus/pretrain/everyday_generated.txt: plain everyday English for pretraining builtin:tiny
(tools/model/train_tiny.py), generated from the small grammar below with a fixed seed, so the corpus is
frozen in the repository, reproducible byte for byte, and disjoint from the demo conversations by
construction (it never reads them; train_tiny.py still drops any line sharing 8 words with one). It
lives in corpus/pretrain/, out of train_demo_tokenizer.py's corpus/*.txt, so the tokenizer is unchanged.

Each line is a short paragraph of 3 to 6 sentences about ordinary life: people doing things at a time
and place for a reason, weather, food, work and school, simple instructions, questions and answers.
It is not meant to be good prose, only varied, grammatical English so the tiny model learns which
words follow which before it is fine-tuned on conversations.
"""
import os
import random

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "corpus", "pretrain", "everyday_generated.txt")
PARAGRAPHS = 1500
SEED = 20261203

NAMES = ["Anna", "Ben", "Clara", "David", "Emma", "Frank", "Grace", "Henry", "Irene", "Jack", "Kate", "Leo",
         "Maria", "Nick", "Olivia", "Paul", "Rosa", "Sam", "Tom", "Uma", "Victor", "Wendy", "Yusuf", "Zoe"]
PEOPLE = ["my sister", "my brother", "my mother", "my father", "our neighbour", "the teacher", "the doctor",
          "an old friend", "my grandmother", "the driver", "a young student", "the new manager", "my cousin",
          "the baker", "a tired nurse", "the man next door", "the woman at the desk", "my best friend"]
TIMES = ["in the morning", "after lunch", "in the evening", "on Monday", "on Friday night", "last week",
         "yesterday", "early on Sunday", "before dinner", "at the weekend", "during the holidays",
         "every Tuesday", "later that day", "in the spring", "in the winter", "at eight o'clock", "at noon"]
PLACES = ["the market", "the library", "the park", "the station", "the office", "the kitchen", "the garden",
          "the beach", "the museum", "the hospital", "the school", "the shop on the corner", "the old bridge",
          "the town square", "the river", "the bakery", "the post office", "the airport", "the hotel",
          "the cinema", "the bus stop", "the small cafe", "the farm", "the village", "the city centre"]
ACTIONS = [("walked to", "place"), ("drove to", "place"), ("went back to", "place"), ("waited at", "place"),
           ("cleaned", "thing"), ("bought", "food"), ("cooked", "food"), ("ate", "food"), ("fixed", "thing"),
           ("painted", "thing"), ("found", "thing"), ("lost", "thing"), ("carried", "thing"),
           ("read", "text"), ("wrote", "text"), ("sent", "text"), ("printed", "text"), ("called", "person"),
           ("visited", "person"), ("helped", "person"), ("met", "person"), ("thanked", "person")]
THINGS = ["the bicycle", "the old car", "a wooden chair", "the broken lamp", "the front door", "a blue umbrella",
          "the kitchen window", "her phone", "his keys", "a heavy box", "the garden fence", "the washing machine",
          "a small table", "the computer", "a pair of shoes", "the roof", "the clock", "a new bag"]
FOODS = ["bread", "apples", "fresh fish", "a bowl of soup", "rice and beans", "a cup of tea", "some cheese",
         "a chocolate cake", "eggs and toast", "vegetables", "a pot of coffee", "orange juice", "pasta",
         "a warm pie", "strawberries", "a sandwich", "chicken and potatoes", "some milk"]
TEXTS = ["a long letter", "a short note", "the newspaper", "an email", "a shopping list", "a report",
         "a story", "the instructions", "a birthday card", "a recipe", "the map", "a poem", "the schedule"]
REASONS = ["because it was raining", "because the shop closed early", "so that nobody would be late",
           "because they had forgotten it", "so the children could play outside", "because it was cheaper",
           "to save some time", "because the bus did not come", "so that everything was ready",
           "because it was a special day", "to surprise the family", "because the doctor said so",
           "to learn something new", "because there was nothing else to do", "so they could rest later"]
FEELINGS = ["happy", "tired", "surprised", "calm", "worried", "hungry", "proud", "bored", "excited", "cold",
            "glad", "nervous", "sleepy", "relieved"]
WEATHER = ["The sky was clear and blue.", "It rained all afternoon.", "A cold wind blew from the north.",
           "The sun came out after the storm.", "Snow covered the streets.", "The air was warm and still.",
           "Grey clouds hung over the hills.", "It was the hottest day of the summer.",
           "Fog made it hard to see the road.", "The evening was cool and quiet."]
TOPICS = ["how to plant tomatoes", "how to save money", "how to learn a language", "how to bake bread",
          "how to fix a flat tyre", "how to write a letter", "how to sleep better", "how to clean a window",
          "how to cook rice", "how to plan a trip", "how to keep a plant alive", "how to read a map"]
STEPS_OF = {
    "how to plant tomatoes": ["choose a sunny spot", "dig a small hole", "put the young plant in",
                              "press the soil around it", "water it every morning"],
    "how to save money": ["write down what you spend", "cook at home more often", "buy only what you need",
                          "put a little away every week", "wait a day before a big purchase"],
    "how to learn a language": ["learn ten new words a day", "listen to simple songs", "speak with friends",
                                "read short stories", "do not be afraid of mistakes"],
    "how to bake bread": ["mix flour, water, salt and yeast", "knead the dough for ten minutes",
                          "let it rise for an hour", "shape the loaf", "bake it until it is golden"],
    "how to fix a flat tyre": ["take the wheel off", "find the hole", "clean the area around it",
                               "put a patch on it", "pump the tyre up again"],
    "how to write a letter": ["start with a greeting", "say why you are writing", "keep the sentences short",
                              "read it again", "end with your name"],
    "how to sleep better": ["go to bed at the same time", "keep the room dark", "put the phone away",
                            "drink less coffee", "take a walk during the day"],
    "how to clean a window": ["mix warm water with soap", "wipe the glass from top to bottom",
                              "dry it with a soft cloth", "clean the corners", "open the curtains"],
    "how to cook rice": ["wash the rice", "add two cups of water", "bring it to the boil",
                         "cover the pot and lower the heat", "wait fifteen minutes"],
    "how to plan a trip": ["pick the dates", "look at the prices", "book a place to stay",
                           "make a list of things to pack", "check the weather before you leave"],
    "how to keep a plant alive": ["give it enough light", "water it when the soil is dry",
                                  "turn the pot now and then", "remove the dead leaves", "do not move it too often"],
    "how to read a map": ["find north", "look at the scale", "find where you are", "choose a route",
                          "check the map again at every turn"],
}
QUESTIONS = [("Where is the nearest bus stop?", "It is just around the corner, next to the bakery."),
             ("What time does the shop open?", "It opens at nine o'clock, but it is closed on Sundays."),
             ("How long does the train take?", "It takes about two hours if there are no delays."),
             ("Can I borrow your pen?", "Of course, here you are."),
             ("Do you know a good place to eat?", "There is a small cafe by the river that serves good soup."),
             ("Why are you late?", "The bus broke down and I had to walk."),
             ("What are you doing this weekend?", "I am going to visit my parents in the village."),
             ("How much does this cost?", "It costs five pounds, or eight for two."),
             ("Is it going to rain today?", "The radio said it might rain in the afternoon."),
             ("Could you help me carry this?", "Sure, it is not that heavy."),
             ("Which way is the station?", "Go straight on and turn left at the lights."),
             ("Have you finished your homework?", "Almost, I only have one question left.")]
OPINIONS = ["I think it was a good idea.", "Nobody expected it to work, but it did.",
            "It was harder than it looked.", "Everyone agreed that it was worth it.",
            "In the end it did not matter very much.", "It was the best day of the week.",
            "They promised to do it again next year.", "Nobody said a word about it afterwards."]


def subject(r):
    return r.choice(NAMES) if r.random() < 0.6 else r.choice(PEOPLE)


def cap(s):
    return s[0].upper() + s[1:]


def obj(r, kind):
    pools = {"place": PLACES, "thing": THINGS, "food": FOODS, "text": TEXTS, "person": NAMES + PEOPLE}
    return r.choice(pools[kind])


def event(r):
    verb, kind = r.choice(ACTIONS)
    parts = [subject(r), verb, obj(r, kind)]
    if r.random() < 0.7:
        parts.append(r.choice(TIMES))
    if r.random() < 0.5:
        parts.append(r.choice(REASONS))
    return cap(" ".join(parts)) + "."


def feeling(r):
    who = subject(r)
    return cap(f"{who} felt {r.choice(FEELINGS)} {r.choice(['when', 'after', 'because'])} "
               f"{r.choice(['the day was over', 'the work was done', 'the guests arrived', 'the phone rang', 'the rain stopped', 'the letter came'])}.")


def story(r):
    sents = [r.choice(WEATHER)] if r.random() < 0.4 else []
    sents += [event(r) for _ in range(r.randint(2, 4))]
    if r.random() < 0.5:
        sents.append(feeling(r))
    if r.random() < 0.4:
        sents.append(r.choice(OPINIONS))
    return " ".join(sents)


def instructions(r):
    topic = r.choice(TOPICS)
    steps = STEPS_OF[topic][:]
    words = ["First", "Then", "After that", "Next", "Finally"]
    body = " ".join(f"{w}, {s}." for w, s in zip(words, steps))
    return cap(f"{subject(r)} explained {topic}.") + " " + body


def dialogue(r):
    (q, a), who, other = r.choice(QUESTIONS), subject(r), subject(r)
    return cap(f'{who} asked {other}, "{q}"') + " " + cap(f'{other} answered, "{a}"') + " " + event(r)


def main():
    r = random.Random(SEED)
    kinds = [story, story, story, instructions, dialogue]
    lines = [r.choice(kinds)(r) for _ in range(PARAGRAPHS)]
    with open(OUT, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    print(f"wrote {OUT}: {len(lines)} lines, {sum(len(l) + 1 for l in lines)} bytes")


if __name__ == "__main__":
    main()
