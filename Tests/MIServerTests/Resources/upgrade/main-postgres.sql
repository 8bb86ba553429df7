--
-- PostgreSQL database dump
--

\restrict blzpDP0qRzfOsrWPkmcc3s79E9dFUr0zg7XiSVNaLulBGiGkx0rhQIJ4zaXeUp5

-- Dumped from database version 15.18 (Debian 15.18-0+deb12u1)
-- Dumped by pg_dump version 15.18 (Debian 15.18-0+deb12u1)

SET statement_timeout = 0;
SET lock_timeout = 0;
SET idle_in_transaction_session_timeout = 0;
SET client_encoding = 'UTF8';
SET standard_conforming_strings = on;
SELECT pg_catalog.set_config('search_path', '', false);
SET check_function_bodies = false;
SET xmloption = content;
SET client_min_messages = warning;
SET row_security = off;

SET default_tablespace = '';

SET default_table_access_method = heap;

--
-- Name: mi_migration; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.mi_migration (
    name text NOT NULL,
    applied_at timestamp with time zone DEFAULT now() NOT NULL
);


--
-- Name: once_per_user; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.once_per_user (
    template_id text NOT NULL,
    technician text NOT NULL,
    submission_id text NOT NULL
);


--
-- Name: part; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.part (
    submission_id text NOT NULL,
    "position" bigint NOT NULL,
    name text NOT NULL,
    filename text NOT NULL,
    size bigint NOT NULL,
    sha256 text NOT NULL
);


--
-- Name: submission; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.submission (
    seq bigint NOT NULL,
    id text NOT NULL,
    technician text NOT NULL COLLATE pg_catalog."C",
    form_name text NOT NULL COLLATE pg_catalog."C",
    uploaded_by text NOT NULL,
    received_at bigint NOT NULL,
    summarized boolean DEFAULT false NOT NULL,
    template_id text DEFAULT ''::text NOT NULL,
    template_title text DEFAULT ''::text NOT NULL COLLATE pg_catalog."C",
    template_version bigint DEFAULT 0 NOT NULL,
    user_display_name text,
    submitted_at bigint,
    submitted_sort bigint DEFAULT 0 NOT NULL,
    answered bigint DEFAULT 0 NOT NULL,
    questions bigint DEFAULT 0 NOT NULL,
    media bigint DEFAULT 0 NOT NULL,
    simulated boolean DEFAULT false NOT NULL,
    scores text,
    search tsvector DEFAULT ''::tsvector NOT NULL,
    form_name_sort text DEFAULT ''::text NOT NULL COLLATE pg_catalog."C"
);


--
-- Name: submission_seq_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.submission ALTER COLUMN seq ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.submission_seq_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Data for Name: mi_migration; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.mi_migration (name, applied_at) FROM stdin;
v1	2026-11-26 15:14:02.085203+00
v2-natural-names	2026-11-26 15:14:02.085203+00
\.


--
-- Data for Name: once_per_user; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.once_per_user (template_id, technician, submission_id) FROM stdin;
once	ana	0a000000-0000-4000-8000-000000000003
\.


--
-- Data for Name: part; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.part (submission_id, "position", name, filename, size, sha256) FROM stdin;
0a000000-0000-4000-8000-000000000001	0	form.json	form.json	100	0000000000000000000000000000000000000000000000000000000000000000
0a000000-0000-4000-8000-000000000002	0	form.json	form.json	101	1111111111111111111111111111111111111111111111111111111111111111
0a000000-0000-4000-8000-000000000003	0	form.json	form.json	102	2222222222222222222222222222222222222222222222222222222222222222
0a000000-0000-4000-8000-000000000004	0	form.json	form.json	102	2222222222222222222222222222222222222222222222222222222222222222
\.


--
-- Data for Name: submission; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.submission (seq, id, technician, form_name, uploaded_by, received_at, summarized, template_id, template_title, template_version, user_display_name, submitted_at, submitted_sort, answered, questions, media, simulated, scores, search, form_name_sort) FROM stdin;
1	0a000000-0000-4000-8000-000000000001	ana	north-pump	ana	1772442060	t	pump-inspection	Centrifugal pump — monthly inspection	4	Ana	1772442000	1772442000	2	9	0	f	\N	'north':1 'pump':2 'rota':4 'valvula':3	north-pump
2	0a000000-0000-4000-8000-000000000002	bob	Hall 10	bob	1772528460	t	pump-inspection	Centrifugal pump — monthly inspection	4	Bob	1772528400	1772528400	2	9	0	f	\N	'10':2 'at':4 'flange':6 'hall':1 'leak':3 'the':5	Hall 0210
3	0a000000-0000-4000-8000-000000000003	ana	Hall 9	ana	1772614860	t	once	Tiny	1	Ana	1772614800	1772614800	0	2	0	f	\N	'9':2 'hall':1	Hall 019
4	0a000000-0000-4000-8000-000000000004	carla	made-up	carla	1772614860	t	pump-inspection	Centrifugal pump — monthly inspection	4	Carla	1772614800	1772614800	2	9	0	t	\N	'answers':4 'made':1 'simulated':3 'up':2	made-up
\.


--
-- Name: submission_seq_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.submission_seq_seq', 4, true);


--
-- Name: mi_migration mi_migration_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.mi_migration
    ADD CONSTRAINT mi_migration_pkey PRIMARY KEY (name);


--
-- Name: once_per_user once_per_user_submission_id_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.once_per_user
    ADD CONSTRAINT once_per_user_submission_id_key UNIQUE (submission_id);


--
-- Name: once_per_user once_per_user_template_id_technician_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.once_per_user
    ADD CONSTRAINT once_per_user_template_id_technician_key UNIQUE (template_id, technician);


--
-- Name: part part_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.part
    ADD CONSTRAINT part_pkey PRIMARY KEY (submission_id, "position");


--
-- Name: part part_submission_id_name_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.part
    ADD CONSTRAINT part_submission_id_name_key UNIQUE (submission_id, name);


--
-- Name: submission submission_id_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.submission
    ADD CONSTRAINT submission_id_key UNIQUE (id);


--
-- Name: submission submission_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.submission
    ADD CONSTRAINT submission_pkey PRIMARY KEY (seq);


--
-- Name: submission_by_form_name_sort; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX submission_by_form_name_sort ON public.submission USING btree (form_name_sort, seq, received_at);


--
-- Name: submission_by_received_at; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX submission_by_received_at ON public.submission USING btree (received_at, seq);


--
-- Name: submission_by_submitted_sort; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX submission_by_submitted_sort ON public.submission USING btree (submitted_sort, seq, received_at);


--
-- Name: submission_by_technician; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX submission_by_technician ON public.submission USING btree (technician, seq, received_at);


--
-- Name: submission_by_template_title; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX submission_by_template_title ON public.submission USING btree (template_title, seq, received_at);


--
-- Name: submission_search; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX submission_search ON public.submission USING gin (search);


--
-- Name: submission_template_form_name_sort; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX submission_template_form_name_sort ON public.submission USING btree (template_id, form_name_sort, seq, received_at);


--
-- Name: submission_template_received_at; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX submission_template_received_at ON public.submission USING btree (template_id, received_at, seq);


--
-- Name: submission_template_submitted_sort; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX submission_template_submitted_sort ON public.submission USING btree (template_id, submitted_sort, seq, received_at);


--
-- Name: submission_template_technician; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX submission_template_technician ON public.submission USING btree (template_id, technician, seq, received_at);


--
-- Name: submission_template_template_title; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX submission_template_template_title ON public.submission USING btree (template_id, template_title, seq, received_at);


--
-- Name: submission_unsummarized; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX submission_unsummarized ON public.submission USING btree (seq) WHERE (NOT summarized);


--
-- Name: submission_user_form_name_sort; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX submission_user_form_name_sort ON public.submission USING btree (technician, form_name_sort, seq, received_at);


--
-- Name: submission_user_received_at; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX submission_user_received_at ON public.submission USING btree (technician, received_at, seq);


--
-- Name: submission_user_submitted_sort; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX submission_user_submitted_sort ON public.submission USING btree (technician, submitted_sort, seq, received_at);


--
-- Name: submission_user_template_title; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX submission_user_template_title ON public.submission USING btree (technician, template_title, seq, received_at);


--
-- Name: once_per_user once_per_user_submission_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.once_per_user
    ADD CONSTRAINT once_per_user_submission_id_fkey FOREIGN KEY (submission_id) REFERENCES public.submission(id) ON DELETE CASCADE;


--
-- Name: part part_submission_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.part
    ADD CONSTRAINT part_submission_id_fkey FOREIGN KEY (submission_id) REFERENCES public.submission(id) ON DELETE CASCADE;


--
-- PostgreSQL database dump complete
--

\unrestrict blzpDP0qRzfOsrWPkmcc3s79E9dFUr0zg7XiSVNaLulBGiGkx0rhQIJ4zaXeUp5

