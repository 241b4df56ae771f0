# Demo conversations, part B: fine-tuning and masking explanations (what maskscope is about).
# Original text written for maskscope; make_demo_dataset.py turns these into resources/data/demo.jsonl.
# Each entry: (category, [(role, content), ...]).

MASKING_TUTOR = ("You are a patient tutor who explains how language models are fine-tuned. "
                 "Use small concrete examples.")

CONVERSATIONS_B = [
    ("Open QA", [
        ("user", "What is an attention mask?"),
        ("assistant", "An attention mask is a list of ones and zeros, one per token, that tells the model "
                      "which positions are real text (1) and which are padding (0). Padded positions are "
                      "hidden from attention, so they cannot change the result for the real tokens."),
    ]),
    ("Open QA", [
        ("system", MASKING_TUTOR),
        ("user", "Why are some labels set to -100 when fine-tuning?"),
        ("assistant", "In PyTorch, `CrossEntropyLoss` has `ignore_index=-100` by default. Any position "
                      "whose label is -100 is skipped: it adds nothing to the loss and nothing to the "
                      "count the loss is averaged over.\n\nFine-tuning code uses this to choose what the "
                      "model learns from. Padding gets -100 because it is not text. When you train on "
                      "chat data you usually also put -100 on the system and user turns, so the model is "
                      "graded only on the assistant's replies.\n\nFor example, with the tokens\n\n"
                      "    <|im_start|>user\\nHi<|im_end|>\\n<|im_start|>assistant\\nHello!<|im_end|>\n\n"
                      "only `Hello!` and the closing `<|im_end|>` keep their token ids as labels; "
                      "everything before them is -100."),
        ("user", "Why keep the closing <|im_end|>?"),
        ("assistant", "Because that token is how the model learns to stop. If it is masked, the model "
                      "never practises ending a reply, and at inference time it tends to ramble on into "
                      "an invented next turn."),
    ]),
    ("Open QA", [
        ("user", "What does padding do in a batch?"),
        ("assistant", "Rows in a batch must have the same length, so shorter rows are filled up with a "
                      "pad token until they match the longest one."),
        ("user", "Does the pad token ever get trained?"),
        ("assistant", "It should not. The attention mask hides pads from the other tokens, and their "
                      "labels are set to -100 so they add nothing to the loss. If labels are simply a "
                      "copy of the input ids, the model is graded on predicting pad after pad, which "
                      "quietly wastes training and can teach it to stop too early."),
    ]),
    ("Open QA", [
        ("system", MASKING_TUTOR),
        ("user", "What goes wrong if the pad token is the same as the end-of-sequence token?"),
        ("assistant", "Many tokenizers have no pad token, so a common shortcut is `tokenizer.pad_token = "
                      "tokenizer.eos_token`. The trouble starts when the collator masks labels by id: it "
                      "sets -100 wherever `input_ids == pad_token_id`. Since pad and EOS share an id, "
                      "the real EOS that ends each reply is masked too.\n\nThe loss looks perfectly normal, "
                      "but the model is never graded on producing EOS. After fine-tuning it keeps "
                      "generating past the point where it should stop.\n\nTwo fixes: give the tokenizer a "
                      "distinct pad token, or build labels from the attention mask (or from explicit "
                      "positions) instead of comparing ids."),
    ]),
    ("Open QA", [
        ("user", "What is packing?"),
        ("assistant", "Packing joins several short examples into one long row so that no space is spent "
                      "on padding. Four examples of 500 tokens fill one 2048-token row instead of four "
                      "mostly empty ones."),
        ("user", "Is there a catch?"),
        ("assistant", "Yes: unless you do something about it, tokens of the second example can attend to "
                      "the first one, as if they were one long document. The usual fixes are:\n\n"
                      "1. Reset `position_ids` to 0 at the start of every example.\n"
                      "2. Use an attention kernel that respects example boundaries, such as "
                      "FlashAttention's variable-length path, or pass a block-diagonal mask.\n\n"
                      "Resetting positions alone does not stop the cross-attention with the ordinary "
                      "eager attention path; it only fixes the positions."),
    ]),
    ("Summarize", [
        ("user", "Summarize in one sentence: Fine-tuning adapts a pretrained language model to a narrower "
                 "task by continuing training on examples of that task. Because the model already knows a "
                 "great deal about language, a few thousand good examples are often enough, and the "
                 "quality of those examples matters far more than their number."),
        ("assistant", "Fine-tuning continues training a pretrained model on a small set of task examples, "
                      "where quality beats quantity."),
    ]),
    ("Open QA", [
        ("system", MASKING_TUTOR),
        ("user", "Left padding or right padding?"),
        ("assistant", "For training, either works as long as the masks are right; right padding is the "
                      "common default.\n\nFor generation, use left padding. The model continues from the "
                      "last position of each row, so that position must be real text, not a pad. With "
                      "left padding every row ends with its prompt, and the new tokens line up.\n\n"
                      "If you left-pad, make sure the position ids skip the pads, otherwise the first "
                      "real token of a short row is told it sits at position 7 instead of 0."),
    ]),
    ("Open QA", [
        ("user", "What is the end-of-turn token in ChatML?"),
        ("assistant", "`<|im_end|>`. Each message opens with `<|im_start|>` and the role name, and closes with `<|im_end|>`."),
    ]),
    ("Open QA", [
        ("user", "My fine-tuned model never stops talking. Where should I look first?"),
        ("assistant", "Check the labels of the token that closes each assistant reply. If it is -100, the "
                      "model was never graded on stopping. The usual causes are pad == eos with "
                      "id-based masking, or a template that puts the end-of-turn token outside the "
                      "span your collator grades."),
        ("user", "How can I see that quickly?"),
        ("assistant", "Decode one collated row and print each token next to its label. A reply that is "
                      "graded token by token and then shows -100 exactly on `<|im_end|>` or `</s>` is "
                      "the tell-tale sign."),
    ]),
    ("Open QA", [
        ("system", MASKING_TUTOR),
        ("user", "Why does the model shift labels by one?"),
        ("assistant", "A causal language model predicts the next token. The logits at position t are a "
                      "guess for token t + 1. Hugging Face models take `labels` aligned with `input_ids` "
                      "and shift them inside the loss: logits `[:, :-1]` are compared with labels "
                      "`[:, 1:]`.\n\nSo if you shift the labels yourself before passing them in, they get "
                      "shifted twice and every prediction is graded against the token two steps ahead."),
    ]),
    ("Open QA", [
        ("user", "What is completion-only training?"),
        ("assistant", "Training where the loss counts only the completion (the answer), never the prompt."),
    ]),
    ("Classify", [
        ("system", "Classify each bug report as one of: data, tokenizer, collator, model."),
        ("user", "\"All my labels are -100 after truncation to 512 tokens.\""),
        ("assistant", "collator"),
        ("user", "\"The word 'hello' becomes five tokens instead of one.\""),
        ("assistant", "tokenizer"),
        ("user", "\"Half of the rows have an empty assistant message.\""),
        ("assistant", "data"),
    ]),
    ("Open QA", [
        ("user", "Can a token cross the boundary between the prompt and the answer?"),
        ("assistant", "Yes. Tokenizers merge characters across whatever text they are given, so if the "
                      "prompt ends with a space and the answer starts with a word, the tokenizer may "
                      "glue them into one token. Tokenizing prompt and answer separately then gives "
                      "different ids than tokenizing the joined text, and a mask computed from the "
                      "prompt's length is off by one. Tokenize the full text once and map the boundary "
                      "through the character offsets instead."),
    ]),
    ("Summarize", [
        ("user", "Summarize this changelog entry for a release note:\n\n"
                 "- fixed crash when dataset row had no messages\n"
                 "- collator: left padding now sets position ids correctly\n"
                 "- new lint rule for duplicated BOS tokens\n"
                 "- faster tokenization of long rows (about 3x)"),
        ("assistant", "This release fixes a crash on empty rows and wrong position ids with left padding, "
                      "adds a check for duplicated BOS tokens, and tokenizes long rows about three times faster."),
    ]),
    ("Open QA", [
        ("system", MASKING_TUTOR),
        ("user", "What happens with multi-turn conversations? Are all assistant turns trained?"),
        ("assistant", "It depends on the collator. Three common choices:\n\n"
                      "- **All assistant turns**: every reply is graded; user and system turns are -100. "
                      "This uses the most signal.\n"
                      "- **Last turn only**: only the final reply is graded. Older recipes did this; it "
                      "throws away most of a long conversation.\n"
                      "- **Everything**: the whole text is graded, like plain language modelling.\n\n"
                      "A frequent accident is getting *last turn only* when you meant *all assistant "
                      "turns*, for instance when the collator searches for the response template "
                      "and keeps only the last match."),
        ("user", "How do I notice that accident?"),
        ("assistant", "Count graded tokens per row. If a five-turn conversation has about as many graded "
                      "tokens as a one-turn one, earlier replies are being skipped."),
    ]),
    ("Open QA", [
        ("user", "What is a BOS token and why would it appear twice?"),
        ("assistant", "BOS (beginning of sequence) is a special token some models expect at the start of "
                      "every input, such as `<s>` in Llama 2. It appears twice when the chat template "
                      "already writes it and the tokenizer adds another one because "
                      "`add_special_tokens=True` was left on. The model then sees a start it never saw "
                      "in pretraining, which usually costs a little quality."),
    ]),
    ("Coding", [
        ("user", "Show me how to build labels that mask padding in PyTorch."),
        ("assistant", "```python\nlabels = input_ids.clone()\nlabels[attention_mask == 0] = -100\n```\n\n"
                      "Using the attention mask instead of `input_ids == pad_token_id` keeps a real EOS "
                      "graded even when pad and EOS share an id."),
    ]),
    ("Chat", [
        ("system", "You answer in German."),
        ("user", "Was bedeutet „Feinabstimmung“ bei Sprachmodellen?"),
        ("assistant", "Feinabstimmung heißt, ein bereits vortrainiertes Modell mit wenigen, "
                      "ausgewählten Beispielen weiterzutrainieren, damit es eine bestimmte Aufgabe "
                      "besser löst – zum Beispiel höfliche Antworten in einem Kundenchat."),
    ]),
    ("Chat", [
        ("user", "用一句话解释什么是注意力掩码。"),
        ("assistant", "注意力掩码告诉模型哪些位置是真实的词元，哪些只是填充，填充的位置不会参与计算。"),
    ]),
    ("Classify", [
        ("user", "Label each sentence as a question, a command or a statement:\n"
                 "1. Close the window.\n2. Is it raining?\n3. The train leaves at six."),
        ("assistant", "1. command\n2. question\n3. statement"),
    ]),
    ("Extract", [
        ("user", "Extract the dates from: \"The workshop runs from 3 March to 7 March 2025, with a "
                 "follow-up call on 14 April.\""),
        ("assistant", "3 March 2025, 7 March 2025, 14 April 2025"),
    ]),
    ("Open QA", [
        ("user", "What are position ids?"),
        ("assistant", "Position ids tell the model where each token sits in the sequence: 0, 1, 2, and so "
                      "on. The model turns them into positional information, for example rotary "
                      "embeddings."),
        ("user", "Why do they matter for packing?"),
        ("assistant", "Without a reset, the third example in a packed row starts at position 900 instead "
                      "of 0, which it never looked like during pretraining."),
        ("user", "And with a reset, is everything fine?"),
        ("assistant", "Positions are fine, but attention may still cross examples unless the attention "
                      "itself is restricted. Check both."),
    ]),
    ("Summarize", [
        ("system", "Summarize the user's text as three bullet points."),
        ("user", "Our team moved the weekly meeting from Monday to Wednesday because half the team "
                 "works remotely on Mondays. The meeting will also be shorter, thirty minutes instead of "
                 "an hour, and we will share the agenda the day before so people can add topics. Notes "
                 "will go into the shared folder as usual."),
        ("assistant", "- The weekly meeting moves from Monday to Wednesday.\n"
                      "- It shrinks from one hour to thirty minutes.\n"
                      "- The agenda is shared a day ahead; notes stay in the shared folder."),
    ]),
    ("Coding", [
        ("system", "You are a concise programming tutor. Answer with code first, then one sentence."),
        ("user", "Render a conversation with a chat template using transformers."),
        ("assistant", "```python\nfrom transformers import AutoTokenizer\n\n"
                      "tok = AutoTokenizer.from_pretrained(\"my-model\")\nmessages = [\n"
                      "    {\"role\": \"user\", \"content\": \"Hi!\"},\n"
                      "    {\"role\": \"assistant\", \"content\": \"Hello, how can I help?\"},\n]\n"
                      "text = tok.apply_chat_template(messages, tokenize=False)\nprint(text)\n```\n\n"
                      "Pass `add_generation_prompt=True` when you want the model to write the next reply."),
    ]),
    ("Open QA", [
        ("user", "Is a loss of 0.0 on my first training step good news?"),
        ("assistant", "No, it usually means no token was graded: every label is -100, often because "
                      "truncation cut off the reply. Check the number of graded tokens per row."),
    ]),
    ("Rewrite", [
        ("user", "Rewrite for a non-technical reader: \"Labels for pad positions are set to -100 so they are excluded from the cross-entropy loss.\""),
        ("assistant", "The filler at the end of short examples is marked so the model is not scored on it."),
    ]),
    ("Brainstorm", [
        ("user", "List some sanity checks to run on a fine-tuning batch before a long training job."),
        ("assistant", "- Decode one row and read it: is the chat template what you expect?\n"
                      "- Print tokens next to labels: are only the replies graded?\n"
                      "- Is the end-of-turn token after each reply graded?\n"
                      "- Is the attention mask 0 on every pad and 1 everywhere else?\n"
                      "- With packing: do position ids restart per example?\n"
                      "- Is there exactly one BOS at the start?\n"
                      "- Does any row have zero graded tokens after truncation?"),
    ]),
    ("Chat", [
        ("user", "Je prépare un café crème, mais il est trop amer. Une idée ?"),
        ("assistant", "Essaie une mouture un peu plus grosse ou une eau légèrement moins chaude : "
                      "l'amertume vient souvent d'une extraction trop longue."),
    ]),
    ("Open QA", [
        ("user", "Why do some tokens look like <0xE2>?"),
        ("assistant", "That is byte fallback. When a character is not in the vocabulary, the tokenizer "
                      "writes its UTF-8 bytes as separate byte tokens. The emoji 👋 is four bytes, so it "
                      "becomes four tokens such as `<0xF0>` `<0x9F>` `<0x91>` `<0x8B>`."),
    ]),
    ("Generation", [
        ("system", "You write release notes in a calm, clear voice."),
        ("user", "Write a two-sentence note announcing that maskscope now shows the attention mask as a grid."),
        ("assistant", "maskscope now draws the attention mask of each row as a grid, so you can see at a "
                      "glance which tokens can see which. Padding, packed examples and their boundaries "
                      "each get their own colour."),
    ]),
    ("Closed QA", [
        ("user", "Given the text \"The collator pads every row to 256 tokens and copies input_ids into labels\", "
                 "are pad tokens graded?"),
        ("assistant", "Yes. Copying input_ids into labels gives every pad a real label, so pads are graded unless another step sets them to -100."),
    ]),
    ("Coding", [
        ("user", "How do I count the graded tokens in a batch of labels?"),
        ("assistant", "```python\ngraded = (labels[:, 1:] != -100).sum().item()\n```\n\n"
                      "The first column is skipped because, after the model's shift, it is never predicted."),
    ]),
    ("Chat", [
        ("user", "Quick one: what is 17 × 23?"),
        ("assistant", "391."),
        ("user", "And 391 divided by 17?"),
        ("assistant", "23, of course 😄"),
    ]),
    ("Open QA", [
        ("user", "What is a control token?"),
        ("assistant", "A token such as `<|im_start|>` that marks structure rather than text. Tokenizers "
                      "recognise its exact string and give it a single id. If user content contains that "
                      "string literally, it may be turned into a real control token, which lets a user "
                      "fake a new turn; tokenizing content with special-token splitting off avoids that."),
    ]),
    ("Closed QA", [
        ("user", "In the batch below, which row is padded?\n\n"
                 "row 0: attention_mask = [1, 1, 1, 1, 1]\nrow 1: attention_mask = [1, 1, 1, 0, 0]"),
        ("assistant", "Row 1: its last two positions are padding."),
    ]),
]
