/* texts: the sdlc hub's texts (texts.h). */
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "hub/texts.h"
#include "json.h"

static const char *const hub_texts[HT__MAX] = {
	[HT_HUB_DOWN] = "хаб не запущен: sdlc-hub serve",
	[HT_UNBOUND] = "сессия не привязана к проекту: запустите MCP с --project <метка> "
	    "(список — projects)",
	[HT_NO_PROJECT] = "проект %s не заведён в хабе: project_create или исправьте --project "
	    "в .mcp.json",
	[HT_NO_MODULE] = "модуля по умолчанию больше нет: укажите модуль, "
	    "sdlc-hub mcp <модуль> [--project <метка>]",
	[HT_UNKNOWN_MODULE] = "неизвестный модуль %s",
	[HT_MODULES] = "модули: jira, wiki",
	[HT_NO_COMMENT] = "у %s нет комментария #%s",
	[HT_NO_ISSUE] = "задачи %s нет в зеркале: проверьте ключ или обновите зеркало (refresh)",
	[HT_PROJECT_EXISTS] = "проект %s уже заведён в хабе",
	[HT_BAD_LABEL] = "метка проекта — заглавные латинские буквы, цифры и _, с буквы, "
	    "до 64 знаков: «%s» не подходит",
	[HT_BAD_NAME] = "название проекта — непустая строка до 255 знаков",
	[HT_BAD_BOARD] = "board_id — целое число больше нуля",
	[HT_HUB_UNKNOWN_PROJECT] = "проект %s не заведён в хабе",
	[HT_HUB_NO_PROJECT_ARG] = "укажите project: метку проекта",
	[HT_HUB_BAD_LIMIT] = "limit — целое число от 1 до 500, а не «%s»",
	[HT_HUB_NO_PATH] = "в API хаба нет %s /hub/%s",
	[HT_HUB_METHOD] = "%s %s не поддерживается",
	[HT_HUB_BAD_BODY] = "тело запроса — не JSON-объект: %s",
	[HT_HUB_SCOPE] = "токену нужна область %s",
	[HT_HUB_ERROR] = "внутренняя ошибка хаба; подробности в его журнале",
	[HT_HUB_BUSY] = "изменение раз за разом сталкивалось с одновременными и не записано; повторите запрос",
	[HT_HUB_ANSWER] = "хаб ответил непонятно (HTTP %ld)",
	[HT_NO_BATCH] = "пакета %s нет",
	[HT_AT_AGENT] = "команда #%llu уже у агента и будет выполнена; остановить — "
	    "`POST /commands/%llu/cancel` с `force: true`",
	[HT_COMMENTS] = "комментарии (%zu):",
	[HT_NO_COMMENTS] = "комментариев нет",
	[HT_MORE] = "ещё %zu",
	[HT_WIKI_NO_ROOT] = "у проекта %s нет корня вики: root_set DOC-…",
	[HT_WIKI_NOT_SYNCED] = "вики проекта ещё не синхронизирована: sync",
	[HT_WIKI_MORE] = "продолжение: offset=%s",
};

const char *
hub_text(enum hub_text t)
{
	return t >= 0 && t < HT__MAX && hub_texts[t] != NULL ? hub_texts[t] : "?";
}

int
hub_textf(char *buf, size_t len, enum hub_text t, ...)
{
	va_list	ap;
	int	n;

	va_start(ap, t);
	n = hub_vsay(buf, len, hub_text(t), ap);
	va_end(ap);
	return n;
}

int
hub_vsay(char *buf, size_t len, const char *fmt, va_list ap)
{
	int	n;

	n = vsnprintf(buf, len, fmt, ap);
	if (n >= 0 && len > 0 && (size_t)n >= len)
		buf[json_utf8_cut(buf, len - 1)] = '\0';
	return n;
}

int
hub_say(char *buf, size_t len, const char *fmt, ...)
{
	va_list	ap;
	int	n;

	va_start(ap, fmt);
	n = hub_vsay(buf, len, fmt, ap);
	va_end(ap);
	return n;
}

int
hub_utf8_prefix(const char *s, size_t max)
{
	size_t	i = 0, n, len = strlen(s);

	while (i < len && i < max) {
		if ((n = json_utf8_len(s + i, len - i)) == 0 || i + n > max)
			break;
		i += n;
	}
	return (int)i;
}
